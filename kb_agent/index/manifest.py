"""The index catalog in SQLite (`.kb/catalog.sqlite`): files with hashes, chunks, BM25 term stats,
headings, links, the chunks still waiting for a vector, a generation number and the fingerprint.
Each file's rows change in one transaction, so a reader never sees half a file, and a killed
`kb index` leaves the last committed state."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from kb_agent.errors import IndexCorrupt, IndexLocked, IndexWriteFailed, KbError, index_write_error
from kb_agent.types import Document

SCHEMA_VERSION = "1"
# files whose chunk rows a reader keeps between calls (Catalog.chunks_for)
CHUNK_CACHE_FILES = 256

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
CREATE TABLE IF NOT EXISTS pending (id TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS pool (
  id TEXT PRIMARY KEY, text_hash TEXT NOT NULL, questions TEXT NOT NULL, model TEXT NOT NULL,
  status TEXT NOT NULL, written_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS pool_text ON pool(text_hash);
"""
# `pending` holds the chunks committed to the catalog whose vector is not yet in the store: the
# lexical index is written first and vectors stream in after it. A catalog written before this
# table existed has none (its writer embedded every chunk before committing it), so readers treat a
# missing table as "nothing pending" and only a writer creates it.
# `pool` holds the questions a chat model wrote for a chunk (`kb index --questions`), keyed by the
# chunk id (a hash of its path, occurrence and text, as its vector is) with the hash of its text alone,
# so a moved or copied section reuses them; `status` is "ok", or "fallback" when the reply was invalid
# after the repair try (the chunk keeps its heading-derived questions and that model is not asked
# again). The model's name is metadata, not part of the fingerprint: another model never forces a
# rebuild, and `--rebuild` keeps the pool. Rows whose chunk is gone are swept by the question phase.
# Like `pending`, readers treat a missing table as an empty pool.


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


# SQLite's primary result codes (the low byte of sqlite_errorcode) that name an OS-level cause
_SQLITE_PERM, _SQLITE_BUSY, _SQLITE_LOCKED, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN = 3, 5, 6, 8, 10, 13, 14


def catalog_error(e: sqlite3.Error, path: Path) -> KbError:
    """One clear KbError for a failed catalog operation: corrupt, disk full, read-only, I/O, busy."""
    import errno

    code = (getattr(e, "sqlite_errorcode", None) or 0) & 0xFF
    detail = str(e)
    if code == _SQLITE_FULL:
        return index_write_error(errno.ENOSPC, detail, str(path))
    if code in (_SQLITE_READONLY, _SQLITE_PERM):
        return index_write_error(errno.EROFS if code == _SQLITE_READONLY else errno.EACCES, detail, str(path))
    if code == _SQLITE_IOERR:
        return index_write_error(errno.EIO, detail, str(path))
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED):
        return IndexLocked(f"the index catalog is busy ({detail}): {path}", hint="another process is writing it; retry when it is done")
    if code == _SQLITE_CANTOPEN:
        return IndexCorrupt(f"the index catalog cannot be opened ({detail}): {path}", hint="check that .kb/ is readable; if it is, run `kb index --rebuild`")
    return IndexCorrupt(f"the index catalog is unreadable ({detail}): {path}", hint="run `kb index --rebuild` (it moves the broken catalog aside)")


def _passes(e: BaseException) -> bool:
    """Errors that are bugs in kb's own SQL, not a property of the file: never disguised."""
    return isinstance(e, (sqlite3.ProgrammingError, sqlite3.IntegrityError, sqlite3.InterfaceError))


class _Cursor(sqlite3.Cursor):
    """A cursor whose failures (also while iterating rows) become KbErrors naming the catalog."""

    def _fail(self, e: sqlite3.Error) -> KbError:
        return catalog_error(e, getattr(self.connection, "kb_path", Path("catalog.sqlite")))

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.Error as e:
            if _passes(e):
                raise
            raise self._fail(e) from None

    def executemany(self, sql: str, seq: Any, /) -> _Cursor:
        try:
            return super().executemany(sql, seq)
        except sqlite3.Error as e:
            if _passes(e):
                raise
            raise self._fail(e) from None

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as e:
            if _passes(e):
                raise
            raise self._fail(e) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as e:
            if _passes(e):
                raise
            raise self._fail(e) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as e:
            if _passes(e):
                raise
            raise self._fail(e) from None


class _Connection(sqlite3.Connection):
    """A connection whose statements run on `_Cursor`, so every failure maps through catalog_error."""

    kb_path: Path = Path("catalog.sqlite")

    def cursor(self, factory: Any = None) -> _Cursor:  # type: ignore[override]
        return super().cursor(factory or _Cursor)

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, seq: Any, /) -> _Cursor:
        return self.cursor().executemany(sql, seq)

    def executescript(self, script: str, /) -> sqlite3.Cursor:
        try:
            return super().executescript(script)
        except sqlite3.Error as e:
            if _passes(e):
                raise
            raise catalog_error(e, self.kb_path) from None

    def commit(self) -> None:
        try:
            super().commit()
        except sqlite3.Error as e:
            if _passes(e):
                raise
            raise catalog_error(e, self.kb_path) from None


def _connect(target: str, path: Path, *, uri: bool) -> _Connection:
    try:
        conn = sqlite3.connect(target, uri=uri, check_same_thread=False, factory=_Connection)
    except sqlite3.Error as e:
        raise catalog_error(e, path) from None
    conn.kb_path = path
    return conn


class Catalog:
    """A connection to the catalog; `Catalog.open(path, readonly=True)` for readers."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, readonly: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self._pool_seen = False
        # a reader's chunks per file, tagged with the generation they were read at (see chunks_for)
        self._chunks: OrderedDict[str, tuple[int, tuple[ChunkRow, ...]]] = OrderedDict()

    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Catalog:
        """Open the catalog. Readers open it `mode=ro`; `immutable=1` only when its folder cannot be
        written (then no writer can run there, and WAL's shared-memory file cannot be created): on a
        read-only file system at once, in a folder this user may not write only if `mode=ro` fails.
        Every failure is a KbError: IndexCorrupt, DiskFull, IndexReadOnly, IndexLocked.
        """
        from kb_agent.corpus.fileio import unwritable_reason

        if not readonly:
            return cls._checked(_connect(str(path), path, uri=False), path, readonly=False)
        why = unwritable_reason(path.parent)
        target = f"file:{quote(str(path))}"
        if why == "read-only file system":
            return cls._checked(_connect(f"{target}?immutable=1", path, uri=True), path, readonly=True)
        try:
            return cls._checked(_connect(f"{target}?mode=ro", path, uri=True), path, readonly=True)
        except (IndexCorrupt, IndexWriteFailed):
            if why is None:
                raise
            return cls._checked(_connect(f"{target}?immutable=1", path, uri=True), path, readonly=True)

    @classmethod
    def _checked(cls, conn: _Connection, path: Path, *, readonly: bool) -> Catalog:
        try:
            if not readonly:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
            conn.execute("SELECT count(*) FROM meta").fetchone()
            conn.execute("SELECT count(*) FROM chunks").fetchone()
        except sqlite3.Error as e:  # the few a cursor lets pass (a foreign schema, a bug)
            conn.close()
            raise catalog_error(e, path) from None
        except KbError:
            conn.close()
            raise
        return cls(conn, path, readonly=readonly)

    def close(self) -> None:
        self.conn.close()

    # meta ---------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))

    def generation(self) -> int:
        """How many commits changed what readers see (lexical rows or vectors); one indexed read."""
        return int(self.get_meta("generation") or 0)

    def bump_generation(self) -> None:
        """Count one more reader-visible change; part of the caller's transaction."""
        self.conn.execute("INSERT INTO meta(key, value) VALUES('generation', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1")

    # files ----------------------------------------------------------------
    def files(self) -> dict[str, FileRow]:
        rows = self.conn.execute("SELECT path, hash, size, mtime_ns, status, reason, title, tags, aliases, line_count FROM files").fetchall()
        return {r[0]: _file_row(r) for r in rows}

    def file(self, path: str) -> FileRow | None:
        r = self.conn.execute("SELECT path, hash, size, mtime_ns, status, reason, title, tags, aliases, line_count FROM files WHERE path=?", (path,)).fetchone()
        return None if r is None else _file_row(r)

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        self.conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path))

    def chunk_ids(self, path: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE path=? ORDER BY ord", (path,)).fetchall()]

    def all_chunk_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT id FROM chunks").fetchall()}

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
        if ids:
            self.conn.execute("DELETE FROM pending WHERE id IN (SELECT id FROM chunks WHERE path=?)", (path,))
        for table in ("chunks", "headings", "links", "files"):
            self.conn.execute(f"DELETE FROM {table} WHERE path=?", (path,))
        return ids

    def put_file(self, doc: Document, ids: list[str], chunk_terms: list[Counter[str]], *, hash: str, size: int, mtime_ns: int, embedded: set[str] | frozenset[str] = frozenset()) -> None:
        """Insert a parsed file (after `remove_file`); its warnings are kept as the row's reason, and
        every chunk not in `embedded` (ids whose vector is known to be stored) is marked pending.
        Caller commits."""
        self.conn.execute(
            "INSERT INTO files VALUES(?,?,?,?,?,?,?,?,?,?)",
            (doc.path, hash, size, mtime_ns, "ok", "; ".join(doc.warnings) or None, doc.title, json.dumps(doc.tags, ensure_ascii=False), json.dumps(doc.aliases, ensure_ascii=False), doc.line_count),
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
        self.conn.executemany("INSERT OR IGNORE INTO pending(id) VALUES(?)", [(cid,) for cid in ids if cid not in embedded])
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

    # vectors ----------------------------------------------------------------
    def _has_pending_table(self) -> bool:
        row = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='pending'").fetchone()
        return row is not None

    def pending_count(self) -> int:
        """Chunks in the catalog still waiting for their vector (0 for a catalog older than the table)."""
        if not self._has_pending_table():
            return 0
        return int(self.conn.execute("SELECT count(*) FROM pending").fetchone()[0])

    def pending_among(self, ids: Iterable[str]) -> set[str]:
        """Which of `ids` still wait for a vector."""
        uniq = list(set(ids))
        out: set[str] = set()
        for i in range(0, len(uniq), 500):
            part = uniq[i : i + 500]
            out.update(r[0] for r in self.conn.execute(f"SELECT id FROM pending WHERE id IN ({','.join('?' * len(part))})", part).fetchall())
        return out

    def pending_rows(self, limit: int, paths: Iterable[str] | None = None) -> list[tuple[str, str, str, tuple[str, ...], str]]:
        """Up to `limit` chunks waiting for a vector, in KB order, optionally only those of `paths`:
        (id, path, file title, heading path, text)."""
        only = sorted(set(paths or ()))[:500]
        where = f"WHERE c.path IN ({','.join('?' * len(only))}) " if only else ""
        q = (
            "SELECT c.id, c.path, f.title, c.heading_path, c.text FROM pending p JOIN chunks c ON c.id = p.id "
            f"JOIN files f ON f.path = c.path {where}ORDER BY c.path, c.ord LIMIT ?"
        )
        return [(str(r[0]), str(r[1]), str(r[2] or ""), tuple(json.loads(str(r[3]))), str(r[4])) for r in self.conn.execute(q, (*only, limit)).fetchall()]

    def mark_embedded(self, ids: Iterable[str]) -> None:
        """These chunks now have their vector in the store. Caller commits."""
        self.conn.executemany("DELETE FROM pending WHERE id=?", [(cid,) for cid in ids])

    # question pool ------------------------------------------------------------
    def has_pool(self) -> bool:
        """Whether the catalog has the pool table (a catalog older than it has none; readers never create it)."""
        if not self._pool_seen:
            row = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='pool'").fetchone()
            self._pool_seen = row is not None  # tables are never dropped: a positive answer holds
        return self._pool_seen

    _TODO = "FROM chunks c LEFT JOIN pool p ON p.id = c.id WHERE p.id IS NULL OR (p.status = 'fallback' AND p.model != ?)"

    def pool_todo_count(self, model: str) -> int:
        """Chunks without questions from a model: never asked, or `model` has not tried them (another
        model's invalid reply is no reason to skip this one)."""
        if not self.has_pool():
            return self.bm25_stats()[0]
        return int(self.conn.execute(f"SELECT count(*) {self._TODO}", (model,)).fetchone()[0])

    def pool_todo(self, model: str, limit: int) -> list[tuple[str, str, str, tuple[str, ...], str]]:
        """Up to `limit` chunks `pool_todo_count` counts, in KB order: (id, path, file title, heading path, text)."""
        q = f"SELECT c.id, c.path, f.title, c.heading_path, c.text {self._TODO.replace('FROM chunks c', 'FROM chunks c JOIN files f ON f.path = c.path')} ORDER BY c.path, c.ord LIMIT ?"
        return [(str(r[0]), str(r[1]), str(r[2] or ""), tuple(json.loads(str(r[3]))), str(r[4])) for r in self.conn.execute(q, (model, limit)).fetchall()]

    def pool_by_text(self, text_hashes: Iterable[str]) -> dict[str, tuple[tuple[str, ...], str]]:
        """Questions already written for chunks with these text hashes (any path, also a chunk since
        removed): text hash → (questions, model)."""
        uniq = list(set(text_hashes))
        out: dict[str, tuple[tuple[str, ...], str]] = {}
        for i in range(0, len(uniq), 500):
            part = uniq[i : i + 500]
            q = f"SELECT text_hash, questions, model FROM pool WHERE status = 'ok' AND text_hash IN ({','.join('?' * len(part))}) ORDER BY written_at"
            out.update({str(h): (tuple(json.loads(str(qs))), str(m)) for h, qs, m in self.conn.execute(q, part).fetchall()})
        return out

    def put_pool(self, rows: Iterable[tuple[str, str, tuple[str, ...], str, str, float]]) -> None:
        """Store (chunk id, text hash, questions, model, status, time) rows. Caller commits."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO pool(id, text_hash, questions, model, status, written_at) VALUES(?,?,?,?,?,?)",
            [(cid, h, json.dumps(list(qs), ensure_ascii=False), model, status, at) for cid, h, qs, model, status, at in rows],
        )

    def sweep_pool(self) -> int:
        """Delete pool rows whose chunk is gone (after their text had the chance to be reused). Caller commits."""
        return int(self.conn.execute("DELETE FROM pool WHERE id NOT IN (SELECT id FROM chunks)").rowcount or 0)

    def pool_entries(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """Every chunk that carries model questions: (chunk id, path, questions), in KB order."""
        if not self.has_pool():
            return []
        q = "SELECT c.id, c.path, p.questions FROM pool p JOIN chunks c ON c.id = p.id WHERE p.status = 'ok' ORDER BY c.path, c.ord"
        return [(str(r[0]), str(r[1]), tuple(json.loads(str(r[2])))) for r in self.conn.execute(q).fetchall()]

    def pool_stats(self) -> dict[str, object]:
        """The pool as `kb status` shows it: chunks with model questions per model, fallbacks, questions."""
        if not self.has_pool():
            return {"models": {}, "chunks_with_questions": 0, "chunks_fallback": 0, "questions": 0}
        rows = self.conn.execute(
            "SELECT p.model, p.status, count(*), sum(json_array_length(p.questions)) FROM pool p JOIN chunks c ON c.id = p.id GROUP BY p.model, p.status"
        ).fetchall()
        models = {str(m): int(n) for m, st, n, _ in rows if st == "ok"}
        return {
            "models": dict(sorted(models.items(), key=lambda kv: (-kv[1], kv[0]))),
            "chunks_with_questions": sum(models.values()),
            "chunks_fallback": sum(int(n) for _m, st, n, _ in rows if st != "ok"),
            "questions": sum(int(q or 0) for _m, st, _n, q in rows if st == "ok"),
        }

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
            out.update({t: int(d) for t, d in self.conn.execute(q, part).fetchall()})
        return out

    def _chunk_select(self, extra: str = "") -> str:
        """The SELECT of a ChunkRow: with the pool, the model's questions come first (then the
        heading-derived ones); `extra` columns follow."""
        if self.has_pool():
            return (f"SELECT c.id, c.path, c.start_line, c.end_line, c.text, c.heading_path, c.questions, p.questions{extra} "
                    "FROM chunks c LEFT JOIN pool p ON p.id = c.id AND p.status = 'ok'")
        return f"SELECT c.id, c.path, c.start_line, c.end_line, c.text, c.heading_path, c.questions, NULL{extra} FROM chunks c"

    def chunks_by_ids(self, ids: list[str]) -> dict[str, ChunkRow]:
        out: dict[str, ChunkRow] = {}
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            q = f"{self._chunk_select()} WHERE c.id IN ({','.join('?' * len(part))})"
            out.update({r[0]: _chunk_row(r) for r in self.conn.execute(q, part).fetchall()})
        return out

    def chunks_for(self, path: str) -> list[ChunkRow]:
        """The file's chunks in order. A reader keeps the last CHUNK_CACHE_FILES files' rows while the
        generation stays put (a warm process ranks the same files' lines query after query); every
        writer commit that changes what readers see moves the generation, read before the rows, so a
        cached list is never older than the generation it is filed under."""
        q = f"{self._chunk_select()} WHERE c.path=? ORDER BY c.ord"
        if not self.readonly:
            return [_chunk_row(r) for r in self.conn.execute(q, (path,)).fetchall()]
        generation = self.generation()
        hit = self._chunks.get(path)
        if hit is not None and hit[0] == generation:
            self._chunks.move_to_end(path)
            return list(hit[1])
        rows = tuple(_chunk_row(r) for r in self.conn.execute(q, (path,)).fetchall())
        self._chunks[path] = (generation, rows)
        while len(self._chunks) > CHUNK_CACHE_FILES:
            self._chunks.popitem(last=False)
        return list(rows)

    def iter_chunks(self) -> Iterator[tuple[ChunkRow, dict[str, int]]]:
        q = f"{self._chunk_select(', c.terms')} ORDER BY c.path, c.ord"
        for r in self.conn.execute(q):
            yield _chunk_row(r[:8]), json.loads(r[8])

    def headings(self, path: str | None = None) -> list[tuple[str, int, int, str, str]]:
        if path is None:
            return self.conn.execute("SELECT path, line, level, text, slug FROM headings ORDER BY path, line").fetchall()
        return self.conn.execute("SELECT path, line, level, text, slug FROM headings WHERE path=? ORDER BY line", (path,)).fetchall()

    def links(self) -> list[tuple[str, int, str, str | None, str, str, str | None]]:
        return self.conn.execute("SELECT path, line, target, anchor, kind, text, resolved FROM links ORDER BY path, line").fetchall()

    def links_touching(self, paths: set[str]) -> list[tuple[str, int, str, str | None, str, str, str | None]]:
        """Links out of or into `paths` (both columns are indexed: no scan of the whole graph)."""
        ps = sorted(paths)
        marks = ",".join("?" * len(ps))
        q = f"SELECT path, line, target, anchor, kind, text, resolved FROM links WHERE path IN ({marks}) OR resolved IN ({marks}) ORDER BY path, line"
        return self.conn.execute(q, ps + ps).fetchall()

    def set_link_resolutions(self, rows: list[tuple[str | None, str, int, str, str]]) -> None:
        self.conn.executemany("UPDATE links SET resolved=? WHERE path=? AND line=? AND target=? AND kind=?", rows)

    def reset(self) -> None:
        """Empty every table; the generation keeps counting up, so a reader notices the rebuild."""
        generation = self.generation()
        for table in ("meta", "files", "chunks", "terms", "headings", "links", "pending"):
            self.conn.execute(f"DELETE FROM {table}")
        self.set_meta("generation", str(generation + 1))
        self.conn.commit()


def _file_row(r: tuple[object, ...]) -> FileRow:
    return FileRow(
        path=str(r[0]), hash=str(r[1]), size=int(r[2]), mtime_ns=int(r[3]),  # type: ignore[call-overload]
        status=str(r[4]), reason=None if r[5] is None else str(r[5]), title=str(r[6] or ""),
        tags=tuple(json.loads(str(r[7] or "[]"))), aliases=tuple(json.loads(str(r[8] or "[]"))), line_count=int(r[9] or 0),  # type: ignore[call-overload]
    )


def _chunk_row(r: tuple[object, ...]) -> ChunkRow:
    """A chunk from (id, path, start, end, text, heading path, heading questions, model questions or NULL)."""
    questions = tuple(json.loads(str(r[6])))
    if len(r) > 7 and r[7] is not None:
        questions = tuple(dict.fromkeys((*json.loads(str(r[7])), *questions)))
    return ChunkRow(
        id=str(r[0]), path=str(r[1]), start_line=int(r[2]), end_line=int(r[3]), text=str(r[4]),  # type: ignore[call-overload]
        heading_path=tuple(json.loads(str(r[5]))), questions=questions,
    )
