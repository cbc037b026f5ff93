"""Which files make up the knowledge base: markdown under the root, minus hidden, .gitignore'd and .kbignore'd paths."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kb_agent.corpus.fileio import UnsafeFile, check_regular, read_regular_text
from kb_agent.corpus.pathmatch import PathGlobs, ignore_spec
from kb_agent.types import FileSkip

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
IGNORE_FILES = (".gitignore", ".kbignore")


def page_name(path: str) -> str:
    """The name a file is filed under: `find` for `command/find.md` (as written; callers fold case)."""
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


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


# Folders never descended into besides hidden ones: dependency and cache trees, not documents.
SKIPPED_DIRS = ("node_modules", "__pycache__")
_Specs = list[tuple[str, PathGlobs]]  # (folder rel path with trailing '/', its ignore rules)


def discover(root: Path) -> Discovery:
    """Walk `root` for markdown files, honouring hidden folders and ignore files at every level.

    Symlinked files are kept only when they resolve inside the root; symlinked folders are not
    followed (no loops). Broken or looping links, and anything that is not a regular file (a named
    pipe, a device, a socket), are reported as skipped and never opened.
    """
    root = root.resolve()
    files: list[tuple[str, Path]] = []
    skipped: list[FileSkip] = []
    _walk(root, "", [], files, skipped)
    files.sort()
    return Discovery(tuple(files), tuple(skipped))


def discover_paths(root: Path, rels: Iterable[str]) -> Discovery:
    """What `discover(root)` finds at these paths only, without walking the rest of the tree.

    Each path (relative, POSIX) is a file or a folder (walked whole); the rules of every folder above
    it apply (hidden folders, .gitignore/.kbignore at each level, symlinks). A path that is missing or
    not part of the knowledge base is simply absent from the result.
    """
    root = root.resolve()
    files: list[tuple[str, Path]] = []
    skipped: list[FileSkip] = []
    for rel in sorted(set(rels)):
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if not parts or ".." in parts:
            continue
        specs: _Specs = []
        inside = True
        for depth in range(len(parts)):  # every folder above the path must be one discover() enters
            folder_rel = "/".join(parts[:depth])
            spec = _load_spec(root / folder_rel if folder_rel else root)
            if spec is not None:
                specs.append((folder_rel + "/" if folder_rel else "", spec))
            if depth + 1 < len(parts):
                name, sub = parts[depth], "/".join(parts[: depth + 1])
                if not _enters(root, sub, name, specs):
                    inside = False
                    break
        if not inside:
            continue
        rel = "/".join(parts)
        full = root / rel
        if full.is_dir() and not full.is_symlink():
            if _enters(root, rel, parts[-1], specs):
                _walk(root, rel, specs, files, skipped)
            continue
        _consider_file(root, rel, parts[-1], specs, files, skipped)
    files.sort()
    return Discovery(tuple(dict.fromkeys(files)), tuple(dict.fromkeys(skipped)))


def _ignored(specs: _Specs, rel: str, is_dir: bool) -> bool:
    for base, spec in specs:
        if rel.startswith(base):
            sub = rel[len(base):] + ("/" if is_dir else "")
            if spec(sub):
                return True
    return False


def _enters(root: Path, rel: str, name: str, specs: _Specs) -> bool:
    """Whether discover() descends into the folder `rel`."""
    if name.startswith(".") or name in SKIPPED_DIRS or _ignored(specs, rel, True):
        return False
    return not (root / rel).is_symlink()


def _walk(root: Path, start: str, specs: _Specs, files: list[tuple[str, Path]], skipped: list[FileSkip]) -> None:
    specs = list(specs)
    for dirpath, dirnames, filenames in os.walk(root / start if start else root, followlinks=False):
        folder = Path(dirpath)
        rel_dir = folder.relative_to(root).as_posix()
        base = "" if rel_dir == "." else rel_dir + "/"
        spec = _load_spec(folder)
        if spec is not None:
            specs.append((base, spec))
        dirnames[:] = [d for d in sorted(dirnames) if _enters(root, base + d, d, specs)]
        for name in sorted(filenames):
            _consider_file(root, base + name, name, specs, files, skipped)


def _consider_file(root: Path, rel: str, name: str, specs: _Specs, files: list[tuple[str, Path]], skipped: list[FileSkip]) -> None:
    if name.startswith(".") or not name.lower().endswith(MARKDOWN_SUFFIXES):
        return
    if _ignored(specs, rel, False):
        return
    full = root / rel
    if full.is_symlink():
        try:
            target = full.resolve(strict=True)
        except (OSError, RuntimeError):
            skipped.append(FileSkip(rel, "broken or looping symlink"))
            return
        if not target.is_relative_to(root):
            skipped.append(FileSkip(rel, "symlink points outside the knowledge base"))
            return
    try:
        check_regular(full.stat())
    except UnsafeFile as e:
        skipped.append(FileSkip(rel, str(e.strerror)))
        return
    except FileNotFoundError:  # deleted since it was listed
        return
    except OSError as e:
        skipped.append(FileSkip(rel, f"unreadable: {e.strerror or e}"))
        return
    files.append((rel, full))
