"""Read side of the index: the catalog (read-only), fingerprint checks, lazily the vectors and embedder;
`refresh()` picks up what a writer committed since (the catalog's generation number moved)."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.errors import IndexCorrupt, IndexIncompatible, IndexNotBuilt, KbError
from kb_agent.index.build import catalog_path
from kb_agent.index.fingerprint import current_fingerprint, fingerprint_mismatch
from kb_agent.index.manifest import Catalog, FileRow
from kb_agent.names import index_dir
from kb_agent.types import SearchFilters

if TYPE_CHECKING:
    from kb_agent.index.chroma_reader import EmbeddedReader
    from kb_agent.index.embeddings import Embedder
    from kb_agent.index.vectors import VectorStore
    from kb_agent.settings import Settings

log = logging.getLogger(__name__)


class IndexReader:
    """An opened index; `catalog` is None when there is no index and it was not required."""

    def __init__(self, settings: Settings, root: Path, catalog: Catalog | None) -> None:
        self.settings = settings
        self.root = root
        self.index_dir = index_dir(root)
        self.catalog = catalog
        self._store: VectorStore | EmbeddedReader | None = None
        self._embedder: Embedder | None = None
        self._files: dict[str, FileRow] | None = None
        self._coverage: tuple[int, int] | None = None
        self._fresh_store = False  # the next store opened must not be Chroma's cached client (see refresh)
        self._lock = threading.Lock()  # plan steps run in threads and may open these lazily together
        self._generation = catalog.generation() if catalog is not None else -1
        self._catalog_id = _file_id(catalog_path(self.index_dir))

    @classmethod
    def open(cls, settings: Settings, root: Path, *, require: bool = True) -> IndexReader:
        """Open the index under `root/.kb` (reads only: nothing is created or migrated).

        Raises:
            IndexNotBuilt: no index and `require`.
            IndexIncompatible: built with another model, chunker or schema.
            IndexCorrupt: the catalog cannot be read.
        """
        cat = _open_catalog(settings, root, require=require)
        return cls(settings, root, cat)

    def generation(self) -> int:
        """The catalog's generation: it moves with every commit that changes what readers see
        (files, chunks, statistics, vectors). One indexed SQLite read; -1 when there is no index."""
        if self.catalog is None:
            return -1
        return self.catalog.generation()

    def refresh(self) -> bool:
        """Pick up what a writer committed since this reader opened (or last refreshed).

        When the generation moved — or the catalog file was replaced, e.g. `.kb/` deleted and
        rebuilt, or an index appeared where there was none — cached file rows and vector counts are
        dropped, the fingerprint is checked again, and the vector store is reopened on next use with a
        new Chroma client: Chroma's embedded client does not see vectors another process added after
        it started (chroma-core/chroma#3792). Never writes.

        Returns:
            True when the index moved (what is cached was re-read), False when nothing changed.

        Raises:
            IndexIncompatible: the index was rebuilt with other settings than this reader's.
            IndexCorrupt: the catalog became unreadable.
        """
        with self._lock:
            now_id = _file_id(catalog_path(self.index_dir))
            if now_id != self._catalog_id or self.catalog is None:
                cat = _open_catalog(self.settings, self.root, require=False) if now_id is not None else None
                if cat is None and self.catalog is None:
                    return False
                if self.catalog is not None:
                    self.catalog.close()
                self.catalog = cat
                self._catalog_id = now_id
            elif self.catalog.generation() == self._generation:
                return False
            else:
                _check_fingerprint(self.catalog, self.settings)
            self._generation = self.catalog.generation() if self.catalog is not None else -1
            self._files = None
            self._coverage = None
            self._store = None
            self._fresh_store = True
            return True

    def vector_coverage(self) -> tuple[int, int]:
        """(chunks with a vector, chunks in the catalog), as of the last open or refresh."""
        if self._coverage is None:
            if self.catalog is None:
                return (0, 0)
            total = self.catalog.bm25_stats()[0]
            self._coverage = (max(total - self.catalog.pending_count(), 0), total)
        return self._coverage

    @property
    def built(self) -> bool:
        return self.catalog is not None

    def files(self) -> dict[str, FileRow]:
        if self._files is None:
            self._files = self.catalog.files() if self.catalog else {}
        return self._files

    def indexed_paths(self) -> set[str]:
        return {p for p, f in self.files().items() if f.status == "ok"}

    def paths_matching(self, filters: SearchFilters) -> set[str] | None:
        """Paths allowed by the filters, or None when there are no filters."""
        if not filters.active:
            return None
        out = set()
        want_tags = {t.lower() for t in filters.tags}
        from kb_agent.corpus.pathmatch import PathGlobs  # pathspec: only when a search has path filters

        globs = PathGlobs(filters.path_globs) if filters.path_globs else None
        for path, f in self.files().items():
            if f.status != "ok":
                continue
            if want_tags and not want_tags <= {t.lower() for t in f.tags}:
                continue
            if globs is not None and not globs(path):
                continue
            out.add(path)
        return out

    @property
    def store(self) -> VectorStore | EmbeddedReader:
        with self._lock:
            return self._open_store()

    def _open_store(self) -> VectorStore | EmbeddedReader:
        if self._store is None:
            from kb_agent.index.vectors import VectorStore

            if self.catalog is None:
                raise IndexNotBuilt(f"no index in {self.root}", hint="run `kb index` first")
            name = self.catalog.get_meta("collection")
            embedded, total = self.vector_coverage()
            if not name or (total and not embedded):
                from kb_agent.errors import VectorsUnavailable

                raise VectorsUnavailable(f"vectors: 0 / {total:,} embedded; run `kb index` to finish", hint="grep, files and related work in full meanwhile")
            self._store = _direct_reader(self.settings, self.index_dir, name) or VectorStore(
                self.settings, self.index_dir, name, create=False, fresh=self._fresh_store)
            self._fresh_store = False
        return self._store

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                from kb_agent.index.embeddings import get_embedder

                self._embedder = get_embedder(self.settings)
            return self._embedder

    def close(self) -> None:
        if self.catalog is not None:
            self.catalog.close()
            self.catalog = None


def _file_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the catalog file, or None when it is missing: a new file means a new index."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _open_catalog(settings: Settings, root: Path, *, require: bool) -> Catalog | None:
    path = catalog_path(index_dir(root))
    if not path.exists():
        if require:
            raise IndexNotBuilt(f"no index in {root}", hint=f"run `kb index --kb {root}` first")
        return None
    cat = Catalog.open(path, readonly=True)
    if cat.get_meta("fingerprint") is None:
        cat.close()
        if require:
            raise IndexNotBuilt(f"the index in {root} was never completed", hint="run `kb index`")
        return None
    try:
        _check_fingerprint(cat, settings)
    except KbError:
        cat.close()
        raise
    return cat


def _check_fingerprint(cat: Catalog, settings: Settings) -> None:
    stored = cat.get_meta("fingerprint")
    if stored is None:
        return
    try:
        why = fingerprint_mismatch(json.loads(stored), current_fingerprint(settings))
    except (ValueError, AttributeError):
        raise IndexCorrupt("the index fingerprint is unreadable", hint="run `kb index --rebuild`") from None
    if why:
        raise IndexIncompatible(f"the index was built with {why}", hint="run `kb index --rebuild` (or set the settings the index was built with)")


def _direct_reader(settings: Settings, index_dir: Path, name: str) -> EmbeddedReader | None:
    """An embedded store's reader that skips `import chromadb` (~0.8 s of a cold search), or None to use
    chromadb's client: for a server, for a store the direct reader cannot open as is, and when this
    process has imported chromadb already (it costs nothing more then, and a process that has just
    written the store — `kb index --watch`, a script that indexes, then searches — keeps asking the
    client that wrote it, whose HNSW graph may not be on disk yet). A new one on every call, so it
    always sees what the files hold now (see `refresh`)."""
    import sys

    if settings.chroma_url or "chromadb" in sys.modules:
        return None
    from kb_agent.index.chroma_reader import EmbeddedReader, ReaderUnavailable
    from kb_agent.index.vectors import ensure_unlocked

    ensure_unlocked(index_dir / "chroma")  # the Rust core would wait for the lock without end

    try:
        return EmbeddedReader(index_dir, name)
    except ReaderUnavailable as e:
        log.debug("using chromadb's client: %s", e)
        return None
