"""Read side of the index: the catalog (read-only), fingerprint checks, lazily the vectors and embedder."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.corpus.pathmatch import PathGlobs
from kb_agent.errors import IndexCorrupt, IndexIncompatible, IndexNotBuilt
from kb_agent.index.build import catalog_path
from kb_agent.index.fingerprint import current_fingerprint, fingerprint_mismatch
from kb_agent.index.manifest import Catalog, FileRow
from kb_agent.names import index_dir
from kb_agent.types import SearchFilters

if TYPE_CHECKING:
    from kb_agent.index.embeddings import Embedder
    from kb_agent.index.vectors import VectorStore
    from kb_agent.settings import Settings


class IndexReader:
    """An opened index; `catalog` is None when there is no index and it was not required."""

    def __init__(self, settings: Settings, root: Path, catalog: Catalog | None) -> None:
        self.settings = settings
        self.root = root
        self.index_dir = index_dir(root)
        self.catalog = catalog
        self._store: VectorStore | None = None
        self._embedder: Embedder | None = None
        self._files: dict[str, FileRow] | None = None
        self._lock = threading.Lock()  # plan steps run in threads and may open these lazily together

    @classmethod
    def open(cls, settings: Settings, root: Path, *, require: bool = True) -> IndexReader:
        """Open the index under `root/.kb`.

        Raises:
            IndexNotBuilt: no index and `require`.
            IndexIncompatible: built with another model, chunker or schema.
            IndexCorrupt: the catalog cannot be read.
        """
        path = catalog_path(index_dir(root))
        if not path.exists():
            if require:
                raise IndexNotBuilt(f"no index in {root}", hint=f"run `kb index --kb {root}` first")
            return cls(settings, root, None)
        cat = Catalog.open(path, readonly=True)
        stored = cat.get_meta("fingerprint")
        if stored is None:
            cat.close()
            if require:
                raise IndexNotBuilt(f"the index in {root} was never completed", hint="run `kb index`")
            return cls(settings, root, None)
        try:
            why = fingerprint_mismatch(json.loads(stored), current_fingerprint(settings))
        except (ValueError, AttributeError):
            cat.close()
            raise IndexCorrupt("the index fingerprint is unreadable", hint="run `kb index --rebuild`") from None
        if why:
            cat.close()
            raise IndexIncompatible(f"the index was built with {why}", hint="run `kb index --rebuild` (or set the settings the index was built with)")
        return cls(settings, root, cat)

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
    def store(self) -> VectorStore:
        with self._lock:
            return self._open_store()

    def _open_store(self) -> VectorStore:
        if self._store is None:
            from kb_agent.index.vectors import VectorStore

            if self.catalog is None:
                raise IndexNotBuilt(f"no index in {self.root}", hint="run `kb index` first")
            name = self.catalog.get_meta("collection")
            if not name:
                raise IndexNotBuilt(f"the index in {self.root} has no vectors yet", hint="run `kb index`")
            self._store = VectorStore(self.settings, self.index_dir, name, create=False)
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

