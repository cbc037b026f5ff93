"""question_search: BM25 over the questions a chat model wrote for each chunk (`kb index --questions`),
each question pointing at its chunk — one more ranked list for hybrid's RRF, matching a reader's
phrasing where the document's own words differ. Without a model-written pool there is no list, and
hybrid ranks exactly as before; heading-derived questions are not indexed here (their words are
already in the lexical index).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kb_agent.index.tokenize import tokenize
from kb_agent.retrieval.lexical import bm25_idf
from kb_agent.types import Evidence, SearchFilters

if TYPE_CHECKING:
    from rank_bm25 import BM25Okapi

    from kb_agent.index.store import IndexReader
    from kb_agent.retrieval.tools import Retriever

# the name of the list in RRF and in `--explain`
POOL_LIST = "pool"
# A chunk enters the list when its best question scores at least this fraction of the best chunk's:
# RRF counts ranks, not scores, so a question sharing one common word with the query would otherwise
# weigh as much as one that restates it.
RELATIVE_FLOOR = 0.35


@dataclass(frozen=True, slots=True)
class QuestionIndex:
    """The pool of one catalog generation: one BM25 document per question, each naming its chunk."""

    generation: int
    chunk_ids: tuple[str, ...]  # per question
    paths: tuple[str, ...]  # per question
    questions: tuple[str, ...]
    bm25: BM25Okapi | None  # None: the pool is empty


_CACHE: weakref.WeakKeyDictionary[IndexReader, QuestionIndex] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def question_index(r: Retriever) -> QuestionIndex:
    """The pool's BM25 index for the reader's current generation (built once per generation)."""
    reader = r.index
    generation = reader.generation()
    with _LOCK:
        cached = _CACHE.get(reader)
        if cached is not None and cached.generation == generation:
            return cached
    entries = reader.catalog.pool_entries() if reader.catalog is not None else []
    ids: list[str] = []
    paths: list[str] = []
    texts: list[str] = []
    docs: list[list[str]] = []
    for cid, path, qs in entries:
        for q in qs:
            ids.append(cid)
            paths.append(path)
            texts.append(q)
            docs.append(tokenize(q, drop_stopwords=True) or ["\x00"])
    bm25 = None
    if docs:
        from rank_bm25 import BM25Okapi

        bm25 = BM25Okapi(docs)
        df: dict[str, int] = {}
        for d in docs:
            for t in set(d):
                df[t] = df.get(t, 0) + 1
        bm25.idf = {t: bm25_idf(len(docs), n) for t, n in df.items()}  # the one IDF formula (lexical.py)
    index = QuestionIndex(generation, tuple(ids), tuple(paths), tuple(texts), bm25)
    with _LOCK:
        _CACHE[reader] = index
    return index


def question_search(r: Retriever, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters()) -> list[Evidence]:
    """Chunks whose model-written questions best match `query` (BM25, a chunk scored by its best
    question), whole chunks, best first; [] when there is no model-written pool or nothing matches.
    `explain` names the matched question."""
    index = question_index(r)
    if index.bm25 is None or r.index.catalog is None:
        return []
    terms = tokenize(query, drop_stopwords=True)
    if not terms:
        return []
    allowed = r.index.paths_matching(filters)
    scores = index.bm25.get_scores(terms)
    best: dict[str, tuple[float, int]] = {}
    for i, sc in enumerate(scores):
        s = float(sc)
        if s <= 0 or (allowed is not None and index.paths[i] not in allowed):
            continue
        cid = index.chunk_ids[i]
        if cid not in best or s > best[cid][0]:
            best[cid] = (s, i)
    if not best:
        return []
    top = max(s for s, _ in best.values())
    ranked = sorted(((s, i, cid) for cid, (s, i) in best.items() if s >= RELATIVE_FLOOR * top), key=lambda t: (-round(t[0], 9), index.paths[t[1]], t[1]))[:k]
    rows = r.index.catalog.chunks_by_ids([cid for _s, _i, cid in ranked])
    out: list[Evidence] = []
    for s, i, cid in ranked:
        row = rows.get(cid)
        if row is None:
            continue
        ev = Evidence(path=row.path, start_line=row.start_line, end_line=row.end_line, text=row.text, score=round(s, 4), tool=POOL_LIST,
                      heading_path=row.heading_path, questions=row.questions)
        ev.explain["pool_question"] = index.questions[i]
        out.append(ev)
    return out


def pool_lists(r: Retriever, query: str, *, k: int, filters: SearchFilters = SearchFilters()) -> dict[str, list[Evidence]]:
    """`{"pool": hits}` for hybrid's RRF when the pool matches the query, else `{}` (no list at all)."""
    hits = question_search(r, query, k=k, filters=filters)
    return {POOL_LIST: hits} if hits else {}
