"""Chunk vectors in Chroma: an embedded PersistentClient under `.kb/chroma`, or a Chroma server
(`KB_CHROMA_URL`, chromadb.HttpClient). Vectors are keyed by chunk id; the catalog decides which
ids are live, so orphans left by a killed run are never served and are collected later."""

from __future__ import annotations

import errno
import hashlib
import logging
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from kb_agent.errors import ConfigError, IndexCorrupt, KbError, StoreUnavailable, VectorsUnavailable, index_write_error

if TYPE_CHECKING:
    from kb_agent.settings import Settings

log = logging.getLogger(__name__)
# Chroma keeps one client system per folder in a process-wide dict that it reads and fills without a lock: a
# watcher's update and a search in the same process (kb mcp --watch) opening clients at once met a system another
# thread had just dropped ("KeyError: '<path>'") or one not started yet ("Could not connect to tenant
# default_tenant"). kb takes, makes and drops those systems under this lock.
_SYSTEMS_LOCK = threading.RLock()
# Chroma caps a single add/get at its max batch size (~5k on this build); stay well under.
WRITE_BATCH = 1000
# Chroma does not always name ENOSPC (a full disk can surface as "Error in compaction"); with less
# free space than this under .kb/chroma (a few batches of segment and log files), a store failure
# is reported as a full disk, not as corruption with a `--rebuild` hint that would fail the same way.
LOW_SPACE_BYTES = 16 * 1024 * 1024
# Chroma writes its HNSW graph to disk only once `sync_threshold` records are unsaved (default 1,000) and every
# process that opens the store inserts the unsaved records into a graph of its own, which its Rust core does not
# search exactly: the same query's hits differed from one process to the next (chroma-core/chroma#2675; session 4:
# 9 fresh processes, 9 different top 35s at 1,000; session 14: 80 records outside the graph of a 2,328-chunk KB,
# 6 processes, 6 different answers to 40 deep queries; one `kb ask` answered in 5 runs of 8, refused in 3). At 1
# every write leaves the whole graph on disk, and every process reads the same graph (6 of 6 alike). The writer's
# own client system persists as it writes, so a watcher's searches in the same process keep using it; its graph in
# memory can still differ from the one on disk at deep ranks (tests/index/test_chroma_reader.py, docs/BENCHMARKS.md).
HNSW_CONFIG = {"space": "cosine", "sync_threshold": 1}
# How long a reader waits for another process to let go of the embedded store's SQLite file before
# it searches without vectors (see `ensure_unlocked`): a live `kb index` holds it for milliseconds.
LOCK_WAIT_S = 2.0


def records_outside_the_graph(chroma_dir: Path) -> int:
    """How many records of an embedded store the HNSW graph on disk does not hold (every process that opens the store
    inserts them into a graph of its own; kb's writes leave none, see HNSW_CONFIG). Read from Chroma's SQLite file."""
    import sqlite3

    conn = sqlite3.connect(f"{(chroma_dir / 'chroma.sqlite3').resolve().as_uri()}?mode=ro", uri=True)
    try:
        (top,) = conn.execute("SELECT max(seq_id) FROM embeddings_queue").fetchone()
        saved = conn.execute("SELECT m.seq_id FROM max_seq_id m JOIN segments s ON s.id = m.segment_id WHERE s.scope = 'VECTOR'").fetchone()
    finally:
        conn.close()
    return int(top or 0) - int(saved[0] if saved else 0)


def collection_name(root: Path, fingerprint: str) -> str:
    """One collection per knowledge base and fingerprint, so many KBs share one server safely.

    The KB's identity is the machine's host name plus the root's absolute path: two checkouts on
    one machine, or the same path on two machines, never share (and so never garbage-collect) each
    other's vectors. The name is computed once, when a catalog first gets vectors, and stored in
    the catalog; readers and later runs use the stored name, so renaming the host later is harmless.
    """
    identity = f"{socket.gethostname()}\n{root.resolve()}"
    digest = hashlib.sha256(f"{identity}\n{fingerprint}".encode()).hexdigest()[:24]
    return f"kb_{digest}"


def describe_store(settings: Settings) -> str:
    if not settings.chroma_url:
        return "embedded chroma (.kb/chroma)"
    where = f"chroma server {settings.chroma_url}"
    if (settings.chroma_tenant, settings.chroma_database) != ("default_tenant", "default_database"):
        where += f" (tenant {settings.chroma_tenant}, database {settings.chroma_database})"
    if settings.chroma_headers:
        where += f" with header(s) {', '.join(sorted(settings.chroma_headers))}"  # names only, never values
    return where


def ensure_unlocked(path: Path, wait_s: float = LOCK_WAIT_S) -> None:
    """Raise VectorsUnavailable when another process holds a lock on the embedded store `path`
    (`.kb/chroma`) for longer than `wait_s`.

    Chroma's Rust core writes to its SQLite file (a rollback journal) when a client starts, and waits
    without end, holding the GIL, while any other process holds a lock on it, even a read's: a
    `kb index` stopped with Ctrl-Z would hang every search. A reader asks SQLite first (an exclusive
    lock, released at once) and searches with grep alone when it cannot have one."""
    import sqlite3

    database = path / "chroma.sqlite3"
    if not database.is_file():
        return
    try:
        con = sqlite3.connect(database, timeout=wait_s, isolation_level=None)
    except sqlite3.Error:
        return  # the regular open reports what is wrong with the file
    try:
        con.execute("BEGIN EXCLUSIVE")
        con.execute("ROLLBACK")
    except sqlite3.OperationalError as e:
        if "locked" in str(e).lower():
            raise VectorsUnavailable(
                f"the vector store {path} is locked by another process",
                hint="a stopped `kb index` (Ctrl-Z) holds it: resume it with `fg`; grep, files and related still work",
            ) from None
    except sqlite3.Error:
        pass  # e.g. a read-only copy: the regular open says so
    finally:
        con.close()


def _client(settings: Settings, index_dir: Path, *, readonly: bool = False, fresh: bool = False) -> Any:
    """A Chroma client for this index.

    Args:
        readonly: a reader's client: the embedded store is never created (a missing one is an error)
            and its schema is validated, never migrated.
        fresh: do not reuse the client system Chroma caches per folder for the life of the process;
            an embedded client sees vectors that another process added only when it starts
            (chroma-core/chroma#3792), so a reader that noticed a newer index asks for a fresh one.
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    # Chroma's own ("apply") default migrates an older store's schema when a client starts
    chroma_settings = ChromaSettings(anonymized_telemetry=False, migrations="validate" if readonly else "apply")
    if not settings.chroma_url:
        with _SYSTEMS_LOCK:
            return _embedded_client(index_dir / "chroma", chroma_settings, readonly=readonly, fresh=fresh)
    url = urlparse(settings.chroma_url)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise ConfigError(f"KB_CHROMA_URL must be an http(s) URL, got {settings.chroma_url!r}", hint="e.g. KB_CHROMA_URL=http://127.0.0.1:8000")
    try:
        return chromadb.HttpClient(
            host=url.hostname,
            port=url.port or (443 if url.scheme == "https" else 8000),
            ssl=url.scheme == "https",
            headers=dict(settings.chroma_headers) or None,
            settings=chroma_settings,
            tenant=settings.chroma_tenant,
            database=settings.chroma_database,
        )
    except Exception as e:
        if _is_auth(e):
            raise StoreUnavailable(f"the Chroma server at {settings.chroma_url} refused the credentials: {_short(e)}", hint=_AUTH_HINT) from None
        if _is_not_found(e):  # the server answered, but the tenant or database is not there
            raise ConfigError(
                f"the Chroma server at {settings.chroma_url} has no tenant {settings.chroma_tenant!r} / database {settings.chroma_database!r}: {_short(e)}",
                hint="create it first (chromadb.AdminClient: create_tenant / create_database) or unset KB_CHROMA_TENANT / KB_CHROMA_DATABASE",
            ) from None
        raise StoreUnavailable(f"cannot reach the Chroma server at {settings.chroma_url}: {_short(e)}", hint="start it (`chroma run --path DIR`) or unset KB_CHROMA_URL") from None


_AUTH_HINT = 'set KB_CHROMA_HEADERS to the header your server or proxy expects, e.g. {"Authorization": "Bearer TOKEN"}'


def _is_auth(e: Exception) -> bool:
    text = str(e).lower()
    return type(e).__name__ in ("AuthorizationError", "AuthenticationError") or any(w in text for w in ("unauthorized", "forbidden", " 401", " 403"))


def ping(settings: Settings, index_dir: Path) -> None:
    """Raise StoreUnavailable (or ConfigError) unless the configured store answers a heartbeat."""
    client = _client(settings, index_dir)
    try:
        client.heartbeat()
    except Exception as e:
        raise StoreUnavailable(f"the Chroma server at {settings.chroma_url} failed: {_short(e)}", hint="check that the server is running") from None


def _is_not_found(e: Exception) -> bool:
    return type(e).__name__ == "NotFoundError" or "does not exist" in str(e) or "not found" in str(e).lower()


def _embedded_client(path: Path, chroma_settings: Any, *, readonly: bool, fresh: bool) -> Any:
    """`_client` for an embedded store (under _SYSTEMS_LOCK)."""
    import chromadb

    _forget_deleted_store(path)
    if readonly and not (path / "chroma.sqlite3").is_file():
        raise VectorsUnavailable(f"the vector store {path} does not exist yet", hint="run `kb index` (grep, files and related still work)")
    from chromadb.api.shared_system_client import SharedSystemClient

    if fresh:
        SharedSystemClient._identifier_to_system.pop(str(path), None)  # not stopped: a writer in this process may still use it
    cached = SharedSystemClient._identifier_to_system.get(str(path))
    if readonly and cached is None:
        ensure_unlocked(path)  # a client that is already running does not start again
    if cached is not None:
        chroma_settings = cached.settings  # Chroma allows one configuration per folder and process: share the writer's
    try:
        return chromadb.PersistentClient(path=str(path), settings=chroma_settings)
    except BaseException as e:  # noqa: BLE001 - Chroma's Rust core raises PanicException (a BaseException) on some corrupt files
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        _drop_cached_system(path)  # else the next open in this process meets a half-built client
        raise _embedded_error(e, path) from None


def _forget_deleted_store(path: Path) -> None:
    """Chroma caches one client system per folder for the life of the process; when that folder was
    deleted (e.g. `rm -rf .kb` under a long-lived `kb chat`), the cached system writes into a
    vanished SQLite file ("attempt to write a readonly database"). Drop such a stale entry."""
    if (path / "chroma.sqlite3").exists():
        return
    from chromadb.api.shared_system_client import SharedSystemClient

    stale = SharedSystemClient._identifier_to_system.pop(str(path), None)
    if stale is not None:
        try:
            stale.stop()
        except Exception:  # noqa: BLE001 - it is being discarded
            log.debug("stopping a stale chroma system failed", exc_info=True)


# Words in Chroma's (and SQLite's) messages that name an OS-level cause rather than a broken store
_OS_CAUSES = (
    (errno.ENOSPC, ("disk is full", "no space left")),
    (errno.EROFS, ("readonly database", "read-only file system", "read-only database")),
    (errno.EACCES, ("permission denied",)),
    (errno.EIO, ("disk i/o error", "input/output error")),
)


def _os_cause(e: BaseException) -> int | None:
    text = str(e).lower()
    if isinstance(e, OSError) and e.errno:
        return e.errno
    return next((err for err, words in _OS_CAUSES if any(w in text for w in words)), None)


def _embedded_error(e: BaseException, path: Path) -> KbError:
    """An embedded store that failed to open: unwritable here, an OS fault, or a broken store."""
    from kb_agent.corpus.fileio import unwritable_reason

    why = unwritable_reason(path if path.exists() else path.parent)
    if why is not None:
        return VectorsUnavailable(f"the vector store cannot be opened here ({why}: {path})", hint="vector search needs a writable .kb/chroma; grep, files and related still work")
    err = _os_cause(e)
    if err is None and _free_bytes(path) < LOW_SPACE_BYTES:
        err = errno.ENOSPC  # Chroma's compactor words a failed write as "Failed to apply logs …"
    if err is not None:
        return index_write_error(err, _short(e), str(path))
    return IndexCorrupt(f"the vector store under {path} failed: {_short(e)}", hint="run `kb index --rebuild` (it moves the broken store aside)")


def _free_bytes(path: Path) -> int:
    import os

    for p in (path, *path.parents):
        try:
            st = os.statvfs(p)
        except OSError:
            continue
        return st.f_bavail * st.f_frsize
    return LOW_SPACE_BYTES


def probe_store(settings: Settings, index_dir: Path) -> str | None:
    """Why the embedded store under `index_dir` cannot be opened and listed, or None when it can."""
    try:
        client = _client(settings, index_dir)
        client.list_collections()
    except KbError as e:
        return e.message
    except BaseException as e:  # noqa: BLE001 - see _client: a corrupt file may panic in Rust
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return _short(e)
    return None


def _drop_cached_system(path: Path) -> None:
    from chromadb.api.shared_system_client import SharedSystemClient

    with _SYSTEMS_LOCK:
        SharedSystemClient._identifier_to_system.pop(str(path), None)


def _short(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text[:200]


def path_filter(paths: set[str] | None) -> dict[str, object] | None:
    """Chroma's `where` for "only chunks of these files" (None: no filter); the one form both the client
    store and the direct reader send."""
    if paths is None:
        return None
    return {"path": {"$in": sorted(paths)}} if len(paths) > 1 else {"path": next(iter(paths))}


class VectorStore:
    """The Chroma collection of one knowledge base.

    Args:
        create: create the collection when missing (the indexer); readers that must not leave an
            empty collection behind on a wiped server pass False and get a clear error instead
            (and open the embedded store without creating or migrating it).
        fresh: a new embedded client rather than the one Chroma cached in this process (see `_client`).
    """

    def __init__(self, settings: Settings, index_dir: Path, name: str, *, create: bool = True, fresh: bool = False) -> None:
        self.settings = settings
        self.name = name
        self._path = index_dir / "chroma"
        self._client = _client(settings, index_dir, readonly=not create, fresh=fresh)
        try:
            if create:
                self._col = self._client.get_or_create_collection(name=name, configuration={"hnsw": dict(HNSW_CONFIG)}, embedding_function=None)
                self._persist_often()
            else:
                self._col = self._client.get_collection(name=name, embedding_function=None)
        except Exception as e:
            if not create and _is_not_found(e):
                where = f"the Chroma server at {settings.chroma_url}" if settings.chroma_url else f"{index_dir / 'chroma'}"
                raise IndexCorrupt(f"the vector collection {name} is missing from {where}", hint="run `kb index --rebuild` (was the server's data directory replaced?)") from None
            raise self._wrap(e) from None

    def _persist_often(self) -> None:
        """Give a collection created by an older kb (Chroma's default 1,000, or kb's 100 before session 14) the
        writer's sync threshold, before this process writes to it (a client system keeps the threshold it loaded
        the collection with)."""
        hnsw = (self._col.configuration_json or {}).get("hnsw") or {}
        if hnsw.get("sync_threshold", HNSW_CONFIG["sync_threshold"]) != HNSW_CONFIG["sync_threshold"]:
            self._col.modify(configuration={"hnsw": {"sync_threshold": HNSW_CONFIG["sync_threshold"]}})
            # once per older store: a new system loads the collection at the new threshold (a server is one process,
            # whose readers all share its one graph)
            if not self.settings.chroma_url:
                self._client = _client(self.settings, self._path.parent, fresh=True)
                self._col = self._client.get_collection(name=self.name, embedding_function=None)

    def _wrap(self, e: Exception) -> KbError:
        if self.settings.chroma_url and _is_auth(e):
            return StoreUnavailable(f"the Chroma server at {self.settings.chroma_url} refused the credentials: {_short(e)}", hint=_AUTH_HINT)
        if self.settings.chroma_url:
            return StoreUnavailable(f"the Chroma server at {self.settings.chroma_url} failed: {_short(e)}", hint="check that the server is running, then rerun")
        return _embedded_error(e, self._path)  # disk full and read-only are named: rebuilding would not help

    def count(self) -> int:
        try:
            return int(self._col.count())
        except Exception as e:
            raise self._wrap(e) from None

    def existing(self, ids: list[str]) -> set[str]:
        out: set[str] = set()
        try:
            for i in range(0, len(ids), WRITE_BATCH):
                got = self._col.get(ids=ids[i : i + WRITE_BATCH], include=[])
                out.update(got["ids"])
        except Exception as e:
            raise self._wrap(e) from None
        return out

    def settle(self) -> None:
        """Make Chroma write its graph to disk now: it persists only on a write, so a collection an older kb
        wrote (threshold 1,000 or 100) keeps up to 999 records that every process re-inserts into a graph of
        its own until something is written. One record written back unchanged, at the writer's threshold of 1,
        is that write (the graph on disk then holds all records)."""
        try:
            got = self._col.get(limit=1, include=["embeddings", "metadatas"])
            if got["ids"]:
                self._col.upsert(ids=got["ids"], embeddings=got["embeddings"], metadatas=got["metadatas"])
        except Exception as e:
            raise self._wrap(e) from None

    def all_ids(self) -> set[str]:
        out: set[str] = set()
        try:
            total = self._col.count()
            for offset in range(0, total, WRITE_BATCH):
                out.update(self._col.get(include=[], limit=WRITE_BATCH, offset=offset)["ids"])
        except Exception as e:
            raise self._wrap(e) from None
        return out

    def upsert(self, ids: list[str], embeddings: list[list[float]], paths: list[str]) -> None:
        try:
            for i in range(0, len(ids), WRITE_BATCH):
                sl = slice(i, i + WRITE_BATCH)
                self._col.upsert(ids=ids[sl], embeddings=embeddings[sl], metadatas=[{"path": p} for p in paths[sl]])
        except Exception as e:
            raise self._wrap(e) from None

    def delete(self, ids: list[str]) -> None:
        try:
            for i in range(0, len(ids), WRITE_BATCH):
                self._col.delete(ids=ids[i : i + WRITE_BATCH])
        except Exception as e:
            raise self._wrap(e) from None

    def query(self, embedding: list[float], k: int, paths: set[str] | None = None) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first, optionally only within `paths`."""
        if paths is not None and not paths:
            return []
        where = path_filter(paths)
        try:
            # chromadb 1.5 returns fewer than n_results when the collection is small or empty, so
            # no count() first: in server mode that would be a second HTTP round trip per query
            res = self._col.query(query_embeddings=[embedding], n_results=k, where=where, include=["distances"])
        except Exception as e:
            raise self._wrap(e) from None
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0])]

    def drop(self) -> None:
        try:
            self._client.delete_collection(self.name)
        except Exception:
            log.debug("no collection %s to drop", self.name)
