"""The one BM25 IDF, and Okapi BM25 over a few passages with whole-KB statistics (rank-bm25's scoring).

Used by grep's re-scoring and shortlist and by the grader's term weights. The Okapi sum is rank-bm25's
`BM25Okapi.get_scores` written out in plain Python, operation for operation, so the scores are the
same floats (tests/retrieval/test_lexical.py checks bit-equality) without importing numpy, which
rank-bm25 needs and which cost a grep-only search ~0.1 s of start-up.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

# rank-bm25's BM25Okapi defaults
K1 = 1.5
B = 0.75


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
    docs = [list(p) or ["\x00"] for p in passages]
    if n_docs > 0:
        stats, n = df, n_docs
    else:
        stats, n = _local_df(passages), len(passages)
    idf = kb_idf(set(query), stats, n)
    return okapi(docs, list(query), idf, b=b)


def okapi(docs: Sequence[Sequence[str]], query: Sequence[str], idf: Mapping[str, float], *, b: float = B) -> list[float]:
    """rank-bm25's `BM25Okapi(docs).get_scores(query)` with `idf` as its IDF table, in plain Python.

    Each term's contribution is computed in the order numpy evaluates
    `idf * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)))` and added term by term, so every
    float equals rank-bm25's.
    """
    freqs = [Counter(d) for d in docs]
    lengths = [len(d) for d in docs]
    avgdl = sum(lengths) / len(docs)
    # the length norm of each passage, as rank-bm25 forms it: k1 * ((1 - b) + (b * dl) / avgdl)
    norms = [K1 * (1 - b + b * dl / avgdl) for dl in lengths]
    scores = [0.0] * len(docs)
    for q in query:
        w = idf.get(q) or 0
        for i, f in enumerate(freqs):
            tf = f.get(q) or 0
            scores[i] += w * (tf * (K1 + 1) / (tf + norms[i]))
    return scores


def _local_df(passages: Sequence[Sequence[str]]) -> dict[str, int]:
    df: dict[str, int] = {}
    for p in passages:
        for t in set(p):
            df[t] = df.get(t, 0) + 1
    return df
