"""Read-only queries on the embedded Chroma store through Chroma's own Rust core, without `import chromadb`.

`import chromadb` costs ~0.8 s (its Python client, telemetry, embedding-function registry, HTTP and
YAML stacks) before a search can ask anything; the store itself is served by Chroma's Rust core
(`chromadb_rust_bindings`, ~0.05 s to import), which the Python client only wraps. A reader that
needs nothing but `query` and `count` opens that core directly, with the same database and segment
files, the same settings a reader's client uses (schema validated, never migrated; nothing created)
and the same query call, so the hits are the Python client's (tests/index/test_chroma_reader.py).
Anything unexpected raises `ReaderUnavailable`, and the caller uses the regular client instead.
"""

from __future__ import annotations

import json
import resource
from pathlib import Path
from typing import Any

TENANT = "default_tenant"
DATABASE = "default_database"
# what chromadb.config.Settings defaults to for an embedded client (migrations_hash_algorithm)
MIGRATION_HASH = "md5"
# ids per get, as VectorStore.WRITE_BATCH (under Chroma's max batch size)
READ_BATCH = 1000


class ReaderUnavailable(Exception):
    """The direct reader cannot serve this store; use chromadb's client (which reports why, if it fails too)."""


class EmbeddedReader:
    """Query-only access to one collection of an embedded store under `index_dir/chroma`.

    Args:
        index_dir: the `.kb` folder.
        name: the collection's name (from the catalog).

    Raises:
        ReaderUnavailable: the bindings are missing, the store does not exist or cannot be opened as
            is (an older schema, a lock, corruption), or the collection is not there.
    """

    def __init__(self, index_dir: Path, name: str) -> None:
        self.name = name
        path = self._path = index_dir / "chroma"
        database = path / "chroma.sqlite3"
        if not database.is_file():
            raise ReaderUnavailable(f"no embedded store at {path}")
        try:
            import chromadb_rust_bindings as rb
        except ImportError as e:
            raise ReaderUnavailable(f"chromadb_rust_bindings: {e}") from None
        try:
            config = rb.SqliteDBConfig(
                hash_type=rb.MigrationHash.MD5 if MIGRATION_HASH == "md5" else rb.MigrationHash.SHA256,
                migration_mode=rb.MigrationMode.Validate,  # a reader never migrates
                url=str(database),
            )
            # as chromadb's RustBindingsAPI sizes it: four data files and one metadata file per HNSW index
            cache = resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 5
            self._bindings: Any = rb.Bindings(allow_reset=False, sqlite_db_config=config, persist_path=str(path), hnsw_cache_size=cache)
            self._id = str(self._bindings.get_collection(name, TENANT, DATABASE).id)
        except BaseException as e:  # the Rust core raises PanicException (a BaseException) on some files
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            raise ReaderUnavailable(f"{type(e).__name__}: {e}") from None

    def count(self) -> int:
        return int(self._bindings.count(self._id, TENANT, DATABASE))

    def existing(self, ids: list[str]) -> set[str]:
        """Which of `ids` have a vector (as VectorStore.existing)."""
        out: set[str] = set()
        for i in range(0, len(ids), READ_BATCH):
            got = self._bindings.get(self._id, ids[i : i + READ_BATCH], None, None, 0, None, [], TENANT, DATABASE)
            out.update(got.ids)
        return out

    def query(self, embedding: list[float], k: int, paths: set[str] | None = None) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) best first, optionally only within `paths` — as VectorStore.query."""
        if paths is not None and not paths:
            return []
        from kb_agent.index.vectors import path_filter

        where = path_filter(paths)
        vector = [float(x) for x in embedding]
        try:
            res = self._bindings.query(self._id, None, [vector], k, json.dumps(where) if where else None, None, ["distances"], TENANT, DATABASE)
        except Exception as e:  # noqa: BLE001 - mapped to kb's store errors, as VectorStore.query does
            from kb_agent.index.vectors import _embedded_error

            raise _embedded_error(e, self._path) from None
        return [(cid, 1.0 - float(d)) for cid, d in zip(res.ids[0], res.distances[0], strict=True)]
