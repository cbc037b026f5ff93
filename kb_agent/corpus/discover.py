"""Which files make up the knowledge base: markdown under the root, minus hidden, .gitignore'd and .kbignore'd paths."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kb_agent.corpus.fileio import UnsafeFile, check_regular, read_regular_text
from kb_agent.corpus.pathmatch import PathGlobs, ignore_spec
from kb_agent.types import FileSkip

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
IGNORE_FILES = (".gitignore", ".kbignore")
# An ignore file is a few KB of patterns; a bigger one is not one we read.
MAX_IGNORE_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Discovery:
    files: tuple[tuple[str, Path], ...]  # (relative POSIX path, absolute path), sorted
    skipped: tuple[FileSkip, ...]


def _load_spec(folder: Path) -> PathGlobs | None:
    patterns: list[str] = []
    for name in IGNORE_FILES:
        f = folder / name
        try:
            patterns.extend(read_regular_text(f, MAX_IGNORE_FILE_BYTES).splitlines())
        except OSError:  # missing, a pipe or device, too large, unreadable: no patterns from it
            continue
    return ignore_spec(patterns)


def discover(root: Path) -> Discovery:
    """Walk `root` for markdown files, honouring hidden folders and ignore files at every level.

    Symlinked files are kept only when they resolve inside the root; symlinked folders are not
    followed (no loops). Broken or looping links, and anything that is not a regular file (a named
    pipe, a device, a socket), are reported as skipped and never opened.
    """
    root = root.resolve()
    files: list[tuple[str, Path]] = []
    skipped: list[FileSkip] = []
    specs: list[tuple[str, PathGlobs]] = []  # (folder rel path with trailing '/', spec)

    def ignored(rel: str, is_dir: bool) -> bool:
        for base, spec in specs:
            if rel.startswith(base):
                sub = rel[len(base):] + ("/" if is_dir else "")
                if spec(sub):
                    return True
        return False

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        folder = Path(dirpath)
        rel_dir = folder.relative_to(root).as_posix()
        base = "" if rel_dir == "." else rel_dir + "/"
        spec = _load_spec(folder)
        if spec is not None:
            specs.append((base, spec))
        keep = []
        for d in sorted(dirnames):
            if d.startswith(".") or d in ("node_modules", "__pycache__"):
                continue
            if ignored(base + d, True):
                continue
            if (folder / d).is_symlink():
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.startswith(".") or not name.lower().endswith(MARKDOWN_SUFFIXES):
                continue
            rel = base + name
            if ignored(rel, False):
                continue
            full = folder / name
            if full.is_symlink():
                try:
                    target = full.resolve(strict=True)
                except (OSError, RuntimeError):
                    skipped.append(FileSkip(rel, "broken or looping symlink"))
                    continue
                if not target.is_relative_to(root):
                    skipped.append(FileSkip(rel, "symlink points outside the knowledge base"))
                    continue
            try:
                check_regular(full.stat())
            except UnsafeFile as e:
                skipped.append(FileSkip(rel, str(e.strerror)))
                continue
            except OSError as e:
                skipped.append(FileSkip(rel, f"unreadable: {e.strerror or e}"))
                continue
            files.append((rel, full))
    files.sort()
    return Discovery(tuple(files), tuple(skipped))


