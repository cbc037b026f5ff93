"""Chunk vectors in Chroma: an embedded PersistentClient under `.kb/chroma`, or a Chroma server
(`KB_CHROMA_URL`, chromadb.HttpClient). Vectors are keyed by chunk id; the catalog decides which
ids are live, so orphans left by a killed run are never served and are collected later."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from kb_agent.errors import ConfigError, IndexCorrupt, StoreUnavailable

if TYPE_CHECKING:
    from kb_agent.settings import Settings

log = logging.getLogger(__name__)
# Chroma caps a single add/get at its max batch size (~5k on this build); stay well under.
WRITE_BATCH = 1000


def collection_name(root: Path, fingerprint: str) -> str:
    """One collection per knowledge base and fingerprint, so many KBs share one server safely."""
    digest = hashlib.sha256(f"{root.resolve()}\n{fingerprint}".encode()).hexdigest()[:24]
    return f"kb_{digest}"


def describe_store(settings: Settings) -> str:
    return f"chroma server {settings.chroma_url}" if settings.chroma_url else "embedded chroma (.kb/chroma)"


def _client(settings: Settings, index_dir: Path) -> Any:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if not settings.chroma_url:
        try:
            return chromadb.PersistentClient(path=str(index_dir / "chroma"), settings=chroma_settings)
        except Exception as e:
            raise IndexCorrupt(f"the vector store under {index_dir / 'chroma'} cannot be opened: {e}", hint="run `kb index --rebuild`") from None
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
        raise StoreUnavailable(f"cannot reach the Chroma server at {settings.chroma_url}: {_short(e)}", hint="start it (`chroma run --path DIR`) or unset KB_CHROMA_URL") from None


def _short(e: Exception) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text[:200]


class VectorStore:
    """The Chroma collection of one knowledge base."""

    def __init__(self, settings: Settings, index_dir: Path, name: str) -> None:
        self.settings = settings
        self.name = name
        self._client = _client(settings, index_dir)
        try:
            self._col = self._client.get_or_create_collection(name=name, metadata={"hnsw:space": "cosine"}, embedding_function=None)
        except Exception as e:
            raise self._wrap(e) from None

    def _wrap(self, e: Exception) -> Exception:
        if self.settings.chroma_url:
            return StoreUnavailable(f"the Chroma server at {self.settings.chroma_url} failed: {_short(e)}", hint="check that the server is running, then rerun")
        return IndexCorrupt(f"the vector store failed: {_short(e)}", hint="run `kb index --rebuild`")

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
        where = None
        if paths is not None:
            where = {"path": {"$in": sorted(paths)}} if len(paths) > 1 else {"path": next(iter(paths))}
        try:
            n = self._col.count()
            if n == 0:
                return []
            res = self._col.query(query_embeddings=[embedding], n_results=min(k, n), where=where, include=["distances"])
        except Exception as e:
            raise self._wrap(e) from None
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0])]

    def drop(self) -> None:
        try:
            self._client.delete_collection(self.name)
        except Exception:
            log.debug("no collection %s to drop", self.name)
