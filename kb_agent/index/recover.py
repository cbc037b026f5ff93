"""Recovering a broken index: before `kb index --rebuild`, a catalog or embedded vector store that cannot
be read is moved aside (kept for inspection, never opened as the working store), so a rebuild always
starts from files that open."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from kb_agent.errors import index_write_error

if TYPE_CHECKING:
    from kb_agent.settings import Settings


def clear_for_rebuild(settings: Settings, root: Path, index_dir: Path) -> list[str]:
    """Before a rebuild, move a catalog or embedded vector store that cannot be read aside (it is
    never opened as the working store), so `kb index --rebuild` always starts from files that open.

    Returns:
        One note per store moved, naming where it went.
    """
    notes: list[str] = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = index_dir / "catalog.sqlite"
    why = _catalog_problem(path)
    if why is not None:
        moved = _move_aside(path, f"corrupt-{stamp}", ("-wal", "-shm"))
        notes.append(f"the catalog was unreadable; moved it aside to {_rel(moved, root)} ({why})")
    chroma = index_dir / "chroma"
    if not settings.chroma_url and chroma.exists():
        why = _vectors_problem(settings, index_dir)
        if why is not None:
            moved = _move_aside(chroma, f"corrupt-{stamp}", ())
            notes.append(f"the vector store was unreadable; moved it aside to {_rel(moved, root)} ({why})")
    return notes


def _catalog_problem(path: Path) -> str | None:
    """Why the catalog at `path` cannot serve as the working catalog, or None (also when absent)."""
    import sqlite3

    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        return "not a regular file"
    try:
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
        try:
            row = conn.execute("PRAGMA quick_check(1)").fetchone()
            if row is None or row[0] != "ok":
                return f"integrity check: {row[0] if row else 'no result'}"
            conn.execute("SELECT count(*) FROM meta").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as e:
        return str(e)
    return None


def _vectors_problem(settings: Settings, index_dir: Path) -> str | None:
    """Why the embedded Chroma store under `index_dir` cannot be opened, or None."""
    from kb_agent.index.vectors import probe_store

    return probe_store(settings, index_dir)


def _move_aside(path: Path, tag: str, companions: tuple[str, ...]) -> Path:
    """Rename `path` (and e.g. its -wal/-shm files) to `<name>.<tag>`; returns the new path."""
    target = path.with_name(f"{path.name}.{tag}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.{tag}-{n}")
    try:
        for suffix in companions:
            extra = path.with_name(path.name + suffix)
            if extra.exists():
                extra.rename(target.with_name(target.name + suffix))
        path.rename(target)
    except OSError as e:
        raise index_write_error(e.errno, e.strerror or str(e), str(path)) from None
    return target


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
