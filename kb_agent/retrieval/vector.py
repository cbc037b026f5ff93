"""vector_search: embedding similarity over indexed chunks, with tag and path filters."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb_agent.errors import InvalidQuery, VectorsUnavailable
from kb_agent.types import Evidence, SearchFilters

if TYPE_CHECKING:
    from kb_agent.retrieval.tools import Retriever


def vectors_notice(embedded: int, total: int) -> str:
    return f"vectors: {embedded:,} / {total:,} embedded; run `kb index` to finish"


def unavailable_notice(e: VectorsUnavailable, instead: str) -> str:
    """The one stderr line for a vector search that fell back to grep; "no vector yet" reads the same
    from every tool, so `kb ask` running vector and hybrid steps says it once."""
    return e.message if e.message.startswith("vectors: ") else f"{e.message}; {instead}"


def vector_search(r: Retriever, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters(), narrow: bool = True) -> list[Evidence]:
    """Chunks nearest to the query embedding; ids the catalog does not know (a killed run's
    leftovers) are never returned. With `narrow`, a long chunk is cut to its best window
    (retrieval/windows.py) and every hit carries its focus lines."""
    if not query.strip():
        raise InvalidQuery("the query is empty")
    cat = r.index.catalog
    if cat is None:
        from kb_agent.errors import IndexNotBuilt

        raise IndexNotBuilt(f"no index in {r.root}", hint="run `kb index` first")
    allowed = r.index.paths_matching(filters)
    store = r.index.store  # opened before the embedder loads: an unavailable store fails fast
    embedded, total = r.index.vector_coverage()
    if embedded < total:  # `kb index` is still embedding (or was stopped): the rest is found by grep
        r.notice(vectors_notice(embedded, total))
    vec = r.query_vector(query)
    hits = store.query(vec, k + 5, allowed)
    rows = cat.chunks_by_ids([cid for cid, _ in hits])
    out: list[Evidence] = []
    # Chroma returns equal distances in no fixed order (the hash embedder makes many ties): break ties
    # by place in the KB so the same query gives the same hits every run (kb check is byte-deterministic)
    ordered = sorted(((cid, sim) for cid, sim in hits if cid in rows),
                     key=lambda h: (-round(h[1], 4), rows[h[0]].path, rows[h[0]].start_line))
    for cid, sim in ordered:
        row = rows[cid]
        ev = Evidence(path=row.path, start_line=row.start_line, end_line=row.end_line, text=row.text, score=round(sim, 4), tool="vector", heading_path=row.heading_path, questions=row.questions)
        ev.explain["vector_rank"] = len(out) + 1
        out.append(ev)
        if len(out) >= k:
            break
    if narrow and out:
        from kb_agent.retrieval.windows import narrow as narrow_hit, query_terms

        q = query_terms(r, query)
        if q.terms:
            out = [narrow_hit(q, ev) for ev in out]
    return out
