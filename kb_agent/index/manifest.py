"""The index catalog in SQLite (`.kb/catalog.sqlite`): files with hashes, chunks, BM25 term stats,
headings, links and the fingerprint. Each file's rows change in one transaction, so a reader never
sees half a file, and a killed `kb index` leaves the last committed state."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kb_agent.errors import IndexCorrupt
from kb_agent.types import Document

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  status TEXT NOT NULL, reason TEXT, title TEXT, tags TEXT, aliases TEXT, line_count INTEGER);
CREATE TABLE IF NOT EXISTS chunks (
  id TEXT PRIMARY KEY, path TEXT NOT NULL, ord INTEGER NOT NULL, start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL, text TEXT NOT NULL, heading_path TEXT NOT NULL, questions TEXT NOT NULL,
  terms TEXT NOT NULL, length INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE TABLE IF NOT EXISTS terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS headings (path TEXT NOT NULL, line INTEGER, level INTEGER, text TEXT, slug TEXT);
CREATE INDEX IF NOT EXISTS headings_path ON headings(path);
CREATE TABLE IF NOT EXISTS links (
  path TEXT NOT NULL, line INTEGER, target TEXT, anchor TEXT, kind TEXT, text TEXT, resolved TEXT);
CREATE INDEX IF NOT EXISTS links_path ON links(path);
CREATE INDEX IF NOT EXISTS links_resolved ON links(resolved);
"""


@dataclass(frozen=True, slots=True)
class FileRow:
    path: str
    hash: str
    size: int
    mtime_ns: int
    status: str  # "ok" | "skipped"
    reason: str | None
    title: str
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    line_count: int


@dataclass(frozen=True, slots=True)
class ChunkRow:
    id: str
    path: str
    start_line: int
    end_line: int
    text: str
    heading_path: tuple[str, ...]
    questions: tuple[str, ...]


class Catalog:
    """A connection to the catalog; `Catalog.open(path, readonly=True)` for readers."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Catalog:
        try:
            if readonly:
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            else:
                conn = sqlite3.connect(path, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
            conn.execute("SELECT count(*) FROM meta").fetchone()
            conn.execute("SELECT count(*) FROM chunks").fetchone()
        except sqlite3.DatabaseError as e:
            raise IndexCorrupt(f"the index catalog is unreadable ({e}): {path}", hint="run `kb index --rebuild`") from None
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    # meta ---------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))

    # files ----------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        rows = self.conn.execute("SELECT path, hash, size, mtime_ns, status, reason, title, tags, aliases, line_count FROM files")
        return {r[0]: _file_row(r) for r in rows}

    def file(self, path: str) -> FileRow | None:
        r = self.conn.execute("SELECT path, hash, size, mtime_ns, status, reason, title, tags, aliases, line_count FROM files WHERE path=?", (path,)).fetchone()
        return None if r is None else _file_row(r)

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        self.conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path))

    def chunk_ids(self, path: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE path=? ORDER BY ord", (path,))]

    def all_chunk_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT id FROM chunks")}

    def remove_file(self, path: str) -> list[str]:
        """Delete a file's rows and its BM25 contributions; returns its chunk ids. Caller commits."""
        ids: list[str] = []
        df: Counter[str] = Counter()
        removed_len = 0
        for cid, terms, length in self.conn.execute("SELECT id, terms, length FROM chunks WHERE path=?", (path,)).fetchall():
            ids.append(cid)
            df.update(json.loads(terms).keys())
            removed_len += length
        if df:
            self.conn.executemany("UPDATE terms SET df = df - ? WHERE term=?", [(n, t) for t, n in df.items()])
            self.conn.execute("DELETE FROM terms WHERE df <= 0")
        self._bump_stats(-len(ids), -removed_len)
        for table in ("chunks", "headings", "links", "files"):
            self.conn.execute(f"DELETE FROM {table} WHERE path=?", (path,))
        return ids

    def put_file(self, doc: Document, ids: list[str], chunk_terms: list[Counter[str]], *, hash: str, size: int, mtime_ns: int) -> None:
        """Insert a parsed file (after `remove_file`). Caller commits."""
        self.conn.execute(
            "INSERT INTO files VALUES(?,?,?,?,?,?,?,?,?,?)",
            (doc.path, hash, size, mtime_ns, "ok", None, doc.title, json.dumps(doc.tags, ensure_ascii=False), json.dumps(doc.aliases, ensure_ascii=False), doc.line_count),
        )
        df: Counter[str] = Counter()
        total = 0
        rows = []
        for i, (chunk, cid, tf) in enumerate(zip(doc.chunks, ids, chunk_terms)):
            length = sum(tf.values())
            total += length
            df.update(tf.keys())
            rows.append((cid, doc.path, i, chunk.start_line, chunk.end_line, chunk.text, json.dumps(chunk.heading_path, ensure_ascii=False), json.dumps(chunk.questions, ensure_ascii=False), json.dumps(tf, ensure_ascii=False), length))
        self.conn.executemany("INSERT OR REPLACE INTO chunks VALUES(?,?,?,?,?,?,?,?,?,?)", rows)
        self.conn.executemany("INSERT INTO terms(term, df) VALUES(?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df", list(df.items()))
        self._bump_stats(len(rows), total)
        self.conn.executemany("INSERT INTO headings VALUES(?,?,?,?,?)", [(doc.path, h.line, h.level, h.text, h.slug) for h in doc.headings])
        self.conn.executemany("INSERT INTO links VALUES(?,?,?,?,?,?,NULL)", [(doc.path, ln.line, ln.target, ln.anchor, ln.kind, ln.text) for ln in doc.links])

    def put_skipped(self, path: str, reason: str, *, hash: str, size: int, mtime_ns: int) -> None:
        self.conn.execute("INSERT OR REPLACE INTO files VALUES(?,?,?,?,?,?,?,?,?,?)", (path, hash, size, mtime_ns, "skipped", reason, "", "[]", "[]", 0))

    def _bump_stats(self, n: int, length: int) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES('n_chunks', ?) ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + ?", (str(max(n, 0)), n)
        )
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES('total_length', ?) ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + ?", (str(max(length, 0)), length)
        )

    # reads ----------------------------------------------------------------
    def bm25_stats(self) -> tuple[int, float]:
        """(number of chunks, average chunk length in terms)."""
        n = int(self.get_meta("n_chunks") or 0)
        total = int(self.get_meta("total_length") or 0)
        return n, (total / n if n else 0.0)

    def document_frequencies(self, terms: Iterable[str]) -> dict[str, int]:
        uniq = list(set(terms))
        out: dict[str, int] = {}
        for i in range(0, len(uniq), 500):
            part = uniq[i : i + 500]
            q = f"SELECT term, df FROM terms WHERE term IN ({','.join('?' * len(part))})"
            out.update({t: int(d) for t, d in self.conn.execute(q, part)})
        return out

    def chunks_by_ids(self, ids: list[str]) -> dict[str, ChunkRow]:
        out: dict[str, ChunkRow] = {}
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            q = f"SELECT id, path, start_line, end_line, text, heading_path, questions FROM chunks WHERE id IN ({','.join('?' * len(part))})"
            out.update({r[0]: _chunk_row(r) for r in self.conn.execute(q, part)})
        return out

    def chunks_for(self, path: str) -> list[ChunkRow]:
        q = "SELECT id, path, start_line, end_line, text, heading_path, questions FROM chunks WHERE path=? ORDER BY ord"
        return [_chunk_row(r) for r in self.conn.execute(q, (path,))]

    def iter_chunks(self) -> Iterator[tuple[ChunkRow, dict[str, int]]]:
        q = "SELECT id, path, start_line, end_line, text, heading_path, questions, terms FROM chunks ORDER BY path, ord"
        for r in self.conn.execute(q):
            yield _chunk_row(r[:7]), json.loads(r[7])

    def headings(self, path: str | None = None) -> list[tuple[str, int, int, str, str]]:
        if path is None:
            return list(self.conn.execute("SELECT path, line, level, text, slug FROM headings ORDER BY path, line"))
        return list(self.conn.execute("SELECT path, line, level, text, slug FROM headings WHERE path=? ORDER BY line", (path,)))

    def links(self) -> list[tuple[str, int, str, str | None, str, str, str | None]]:
        return list(self.conn.execute("SELECT path, line, target, anchor, kind, text, resolved FROM links ORDER BY path, line"))

    def links_touching(self, paths: set[str]) -> list[tuple[str, int, str, str | None, str, str, str | None]]:
        """Links out of or into `paths` (both columns are indexed: no scan of the whole graph)."""
        ps = sorted(paths)
        marks = ",".join("?" * len(ps))
        q = f"SELECT path, line, target, anchor, kind, text, resolved FROM links WHERE path IN ({marks}) OR resolved IN ({marks}) ORDER BY path, line"
        return list(self.conn.execute(q, ps + ps))

    def set_link_resolutions(self, rows: list[tuple[str | None, str, int, str, str]]) -> None:
        self.conn.executemany("UPDATE links SET resolved=? WHERE path=? AND line=? AND target=? AND kind=?", rows)

    def reset(self) -> None:
        for table in ("meta", "files", "chunks", "terms", "headings", "links"):
            self.conn.execute(f"DELETE FROM {table}")
        self.conn.commit()


def _file_row(r: tuple[object, ...]) -> FileRow:
    return FileRow(
        path=str(r[0]), hash=str(r[1]), size=int(r[2]), mtime_ns=int(r[3]),  # type: ignore[call-overload]
        status=str(r[4]), reason=None if r[5] is None else str(r[5]), title=str(r[6] or ""),
        tags=tuple(json.loads(str(r[7] or "[]"))), aliases=tuple(json.loads(str(r[8] or "[]"))), line_count=int(r[9] or 0),  # type: ignore[call-overload]
    )


def _chunk_row(r: tuple[object, ...]) -> ChunkRow:
    return ChunkRow(
        id=str(r[0]), path=str(r[1]), start_line=int(r[2]), end_line=int(r[3]), text=str(r[4]),  # type: ignore[call-overload]
        heading_path=tuple(json.loads(str(r[5]))), questions=tuple(json.loads(str(r[6]))),
    )
