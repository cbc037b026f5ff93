"""hybrid_search: grep-BM25 and vector lists (and the model-written question pool's, when there is one)
fused with Reciprocal Rank Fusion."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb_agent.types import Evidence, SearchFilters

if TYPE_CHECKING:
    from kb_agent.retrieval.tools import Retriever

# RRF's k from Cormack et al. (2009): dampens the weight of top ranks so one list cannot dominate.
RRF_K = 60
# Each list is read this deep before fusing: items ranked lower rarely move into the top k.
FUSE_DEPTH = 30


def rrf(lists: dict[str, list[Evidence]], k: int, rrf_k: int = RRF_K) -> list[Evidence]:
    """Fuse ranked lists; items whose line ranges overlap in the same file count once.

    The first list's items anchor the fused identity in order of appearance across lists; the
    explain dict of each result holds every list's rank and its `1/(rrf_k + rank)` contribution.
    """
    fused: list[dict[str, object]] = []
    for name, items in lists.items():
        for rank, ev in enumerate(items, 1):
            contrib = 1.0 / (rrf_k + rank)
            slot = next((f for f in fused if _overlaps(f["ev"], ev) and name not in f["ranks"]), None)  # type: ignore[arg-type,operator]
            if slot is None:
                fused.append({"ev": ev, "score": contrib, "ranks": {name: rank}, "contrib": {name: contrib}})
            else:
                slot["score"] = float(slot["score"]) + contrib  # type: ignore[arg-type]
                slot["ranks"][name] = rank  # type: ignore[index]
                slot["contrib"][name] = contrib  # type: ignore[index]
                if _prefer(ev, slot["ev"]):  # type: ignore[arg-type]
                    slot["ev"] = ev
    # ties (same fused score) in place order, so equal inputs give equal output every run
    fused.sort(key=lambda f: (-round(float(f["score"]), 9), f["ev"].path, f["ev"].start_line))  # type: ignore[arg-type,attr-defined]
    out = []
    for f in fused[:k]:
        best: Evidence = f["ev"]  # type: ignore[assignment]
        shares: dict[str, float] = f["contrib"]  # type: ignore[assignment]
        res = Evidence(path=best.path, start_line=best.start_line, end_line=best.end_line, text=best.text, score=round(float(f["score"]), 6), tool="hybrid", heading_path=best.heading_path, questions=best.questions)  # type: ignore[arg-type]
        res.explain.update({"ranks": f["ranks"], "rrf": {n: round(c, 6) for n, c in shares.items()}})
        out.append(res)
    return out


def _overlaps(a: Evidence, b: Evidence) -> bool:
    return a.path == b.path and a.start_line <= b.end_line and b.start_line <= a.end_line


def _prefer(new: Evidence, old: Evidence) -> bool:
    # section-aligned chunks read better than a ±10-line grep window, unless the chunk is huge
    return new.tool == "vector" and old.tool != "vector" and len(new.text) <= 2000


def hybrid_search(r: Retriever, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters()) -> list[Evidence]:
    """Fuse grep and vector lists with RRF, then rank passages (retrieval/rerank.py): each fused hit cut
    to its best lines and the line windows of the top files, scored by words, meaning and fused rank.

    The vector list is fetched in a second thread while grep runs: its first use in a process pays
    for importing Chromadb, opening the store and loading the embedding model (most of a cold
    `kb search`), and the ripgrep subprocess and the model's inference leave the GIL free meanwhile.
    The lists, and so the results, are the same as one after the other.
    """
    import concurrent.futures as cf

    from kb_agent.errors import InvalidQuery, VectorsUnavailable
    from kb_agent.retrieval.grep import grep_search
    from kb_agent.retrieval.pool import pool_lists
    from kb_agent.retrieval.rerank import rank_passages
    from kb_agent.retrieval.vector import vector_search

    depth = max(FUSE_DEPTH, k * 3)
    with cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-hybrid-vectors") as pool:
        # whole chunks are fused (their overlap with grep passages decides what counts once); the
        # passages are cut afterwards
        vectors = pool.submit(vector_search, r, query, k=depth, filters=filters, narrow=False)
        try:
            grep_hits = grep_search(r, query, k=depth, filters=filters, focus_crumbs=False)
        except InvalidQuery:
            grep_hits = []  # e.g. only stopwords: meaning may still be found by vectors
        try:
            vec_hits = vectors.result()
        except VectorsUnavailable as e:  # e.g. a read-only KB: the lexical list alone still answers
            from kb_agent.retrieval.vector import unavailable_notice

            r.notice(unavailable_notice(e, "hybrid search is using grep only"))
            vec_hits = []
    pooled = pool_lists(r, query, k=depth, filters=filters)
    lists = {"grep": grep_hits, "vector": vec_hits, **pooled} if vec_hits else {"grep": grep_hits, **pooled}
    return rank_passages(r, query, rrf(lists, depth), vec_hits, k, pooled=[ev for hits in pooled.values() for ev in hits])
