"""Comparing files on disk with the catalog: which are new or changed (read, hashed), which are
unchanged (size and mtime, else the hash, say so), and which cannot be read (skipped with a reason)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.corpus.fileio import MAX_FILE_BYTES as MAX_FILE_BYTES  # files above it are skipped with a reason
from kb_agent.corpus.fileio import UnsafeFile, read_regular_bytes
from kb_agent.types import FileSkip

if TYPE_CHECKING:
    from kb_agent.index.manifest import Catalog, FileRow


@dataclass(frozen=True, slots=True)
class Change:
    """A file whose content differs from the catalog (or that the catalog does not know)."""

    path: str
    abspath: Path
    size: int
    mtime_ns: int
    hash: str
    data: bytes


@dataclass(slots=True)
class ScanResult:
    changes: list[Change] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[FileSkip] = field(default_factory=list)
    warnings: list[FileSkip] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)  # listed, then deleted before it could be read


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def validate_text(data: bytes) -> tuple[str | None, str | None]:
    """(decoded text, None) or (None, why it is skipped)."""
    if not data.strip():
        return None, "empty file"
    if b"\0" in data[:8192]:
        return None, "binary file (NUL bytes), not markdown"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        return None, f"not valid UTF-8 (line {line})"
    return text, None


def scan(cat: Catalog, files: tuple[tuple[str, Path], ...], known: dict[str, FileRow]) -> ScanResult:
    """Read what changed among `files`; a file whose size and mtime match the catalog is not read,
    one whose hash matches gets its new mtime recorded (the caller commits)."""
    out = ScanResult()
    for rel, abspath in files:
        row = known.get(rel)
        try:
            st = abspath.stat()
            if row is not None and (row.size, row.mtime_ns) == (st.st_size, st.st_mtime_ns):
                _keep(out, row)
                continue
            if st.st_size > MAX_FILE_BYTES:
                out.skipped.append(FileSkip(rel, f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB ({st.st_size / 1048576:.1f} MB)"))
                continue
            data = read_regular_bytes(abspath, MAX_FILE_BYTES)
        except UnsafeFile as e:  # became a pipe or device, or grew past the cap, since discovery
            out.skipped.append(FileSkip(rel, str(e.strerror)))
            continue
        except FileNotFoundError:  # deleted since discovery (an editor's temp file, a rename)
            out.gone.append(rel)
            continue
        except OSError as e:
            out.skipped.append(FileSkip(rel, f"unreadable: {e.strerror or e}"))
            continue
        h = file_hash(data)
        if row is not None and row.hash == h:
            cat.touch_file(rel, st.st_size, st.st_mtime_ns)
            _keep(out, row)
            continue
        out.changes.append(Change(rel, abspath, st.st_size, st.st_mtime_ns, h, data))
    return out


def _keep(out: ScanResult, row: FileRow) -> None:
    out.unchanged += 1
    if row.status == "skipped" and row.reason:
        out.skipped.append(FileSkip(row.path, row.reason))
    elif row.reason:
        out.warnings.append(FileSkip(row.path, row.reason))
