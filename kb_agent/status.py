"""What `kb status` reports, as plain data: freshness, counts, fingerprint, store, ripgrep."""

from __future__ import annotations

import json
from typing import Any

from kb_agent.errors import IndexIncompatible, KbError
from kb_agent.names import index_dir
from kb_agent.settings import Settings


def collect_status(settings: Settings) -> dict[str, Any]:
    """Gather status without raising for a missing index or an unreachable store (they are reported)."""
    from kb_agent.index.build import build_index, catalog_path
    from kb_agent.index.embeddings import embedder_name
    from kb_agent.index.manifest import Catalog
    from kb_agent.index.vectors import describe_store
    from kb_agent.retrieval._rg import find_rg, rg_version

    root = settings.kb_root()
    st: dict[str, Any] = {"kb_root": str(root), "index": "missing"}
    cat_file = catalog_path(index_dir(root))
    collection = None
    if cat_file.exists():
        try:
            cat = Catalog.open(cat_file, readonly=True)
            try:
                files = cat.files()
                fp = cat.get_meta("fingerprint")
                collection = cat.get_meta("collection")
                st["files_indexed"] = sum(1 for f in files.values() if f.status == "ok")
                st["files_skipped"] = sum(1 for f in files.values() if f.status != "ok")
                st["chunks"] = cat.bm25_stats()[0]
                pending = cat.pending_count()
                st["vectors_embedded"] = max(st["chunks"] - pending, 0)  # chunks whose vector is stored
                st["vectors_pending"] = pending  # chunks `kb index` has not embedded yet (grep finds them)
                st["generation"] = cat.generation()
                st["fingerprint"] = json.loads(fp) if fp else {}
                st["interrupted_run_pending"] = cat.get_meta("dirty") == "1"
                st["question_pool"] = _pool_status(cat.pool_stats(), st["chunks"], settings)
            finally:
                cat.close()
            report = build_index(settings, check=True)
            st["index"] = "stale" if report.stale else "fresh"
            st["stale_files"] = [*report.indexed, *report.updated, *report.removed]
        except IndexIncompatible as e:
            st["index"] = f"incompatible: {e.message}; {e.hint}"
        except KbError as e:
            st["index"] = f"unreadable: {e.message}"
    st["embedding_provider"] = embedder_name(settings)
    st["vector_store"] = describe_store(settings)
    if collection:
        st["vector_collection"] = collection
    expected = st["vectors_embedded"] if "vectors_embedded" in st else None
    st["vector_store_answers"] = _store_answers(settings, root, collection, expected)
    try:
        st["rg"] = f"{find_rg(settings.rg_path)} ({rg_version(settings.rg_path)})"
    except KbError as e:
        st["rg"] = f"missing: {e.message}"
    st["llm_provider"] = settings.llm_provider + (f" ({settings.llm_model})" if settings.llm_model else "")
    return st


def _pool_status(stats: dict[str, Any], chunks: int, settings: Settings) -> dict[str, Any]:
    """Which questions the chunks carry: a model's (how many chunks, which models) or their headings'."""
    with_model = int(stats["chunks_with_questions"])
    fallback = int(stats["chunks_fallback"])
    return {
        "source": "model" if with_model else "headings",
        "chunks_with_model_questions": with_model,
        "models": stats["models"],  # model name → chunks whose questions it wrote
        "questions": int(stats["questions"]),
        "chunks_fallback": fallback,  # the model's reply was invalid: heading questions kept
        "chunks_without_model_questions": max(chunks - with_model - fallback, 0),
        "index_questions": settings.index_questions,  # KB_INDEX_QUESTIONS: `kb index` writes them by default
    }


def _store_answers(settings: Settings, root: Any, collection: str | None, chunks: int | None) -> str:
    """`yes (N vectors)` or `no: <one-line reason naming the URL>`; never creates a collection.
    `chunks` is how many vectors the catalog says are stored (its chunks minus those pending)."""
    if not collection:
        return _probe(settings, root)
    try:
        from kb_agent.index.vectors import VectorStore

        n = VectorStore(settings, index_dir(root), collection, create=False).count()
    except KbError as e:
        return f"no: {e.message}"
    if chunks is not None and n > chunks:  # an interrupted run's orphans (or a batch it stored but did not record); the next `kb index` settles them
        return f"yes ({n} vectors, {n - chunks} more than the catalog's {chunks} chunks: run `kb index`)"
    if chunks is not None and n < chunks:  # the store lost vectors (e.g. the server's data was replaced)
        return f"yes ({n} vectors, but the catalog has {chunks} chunks: run `kb index --rebuild`)"
    return f"yes ({n} vectors)"


def _probe(settings: Settings, root: Any) -> str:
    """No collection yet: only a server can be checked (the embedded store is created on demand)."""
    if not settings.chroma_url:
        return "no vectors yet"
    try:
        from kb_agent.index.vectors import ping

        ping(settings, index_dir(root))
    except KbError as e:
        return f"no: {e.message}"
    return "yes (no vectors yet)"
