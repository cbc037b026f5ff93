"""The one BM25 IDF, and Okapi BM25 over a few passages with whole-KB statistics (rank-bm25's scoring).

Used by grep's re-scoring and shortlist and by the grader's term weights.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from rank_bm25 import BM25Okapi


def bm25_idf(n_docs: int, df: int) -> float:
    """BM25's IDF in its non-negative (Lucene) form: log(1 + (N - df + 0.5) / (df + 0.5)).

    Args:
        n_docs: how many chunks the statistics cover (at least 1 is assumed).
        df: in how many of them the term occurs.
    """
    n = max(n_docs, 1)
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def kb_idf(terms: Iterable[str], df: Mapping[str, int], n_docs: int) -> dict[str, float]:
    """bm25_idf of each term from whole-KB statistics; a term unseen in the index counts as occurring once."""
    return {t: bm25_idf(n_docs, df.get(t, 1)) for t in terms}


def bm25_scores(passages: Sequence[Sequence[str]], query: Sequence[str], df: Mapping[str, int], n_docs: int, *, b: float = 0.75) -> list[float]:
    """Okapi BM25 (rank-bm25, k1=1.5, b=0.75 unless given) of tokenized `passages` for the tokenized `query`.

    Term frequencies and lengths come from the passages; the IDF comes from the whole knowledge base
    (`df` over `n_docs` chunks), so a word common in the KB counts for little even when it is rare
    among the few passages scored. With no index (`n_docs` = 0) the passages are the statistics.

    `b` = 0 turns off length normalisation: term frequencies still saturate, but a passage is not
    preferred for being shorter than the others (retrieval/rerank.py compares windows of about one size).

    Returns:
        One score per passage, in order.
    """
    if not query or not passages:
        return [0.0] * len(passages)
    bm25 = BM25Okapi([list(p) or ["\x00"] for p in passages], b=b)
    if n_docs > 0:
        stats, n = df, n_docs
    else:
        stats, n = _local_df(passages), len(passages)
    # rank-bm25 scores with whatever `idf` holds: give it the one formula for exactly the query terms
    bm25.idf = kb_idf(set(query), stats, n)
    return [float(s) for s in bm25.get_scores(list(query))]


def _local_df(passages: Sequence[Sequence[str]]) -> dict[str, int]:
    df: dict[str, int] = {}
    for p in passages:
        for t in set(p):
            df[t] = df.get(t, 0) + 1
    return df
