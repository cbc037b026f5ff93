"""The one BM25: Lucene IDF from whole-KB statistics, rank-bm25's Okapi term weighting, no private overrides."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kb_agent.retrieval.lexical import bm25_idf, bm25_scores, kb_idf

K1, B = 1.5, 0.75  # rank-bm25's BM25Okapi defaults


def okapi(passages: list[list[str]], query: list[str], idf: dict[str, float]) -> list[float]:
    """BM25 written out by hand: the oracle the implementation must equal."""
    docs = [p or ["\x00"] for p in passages]
    avgdl = sum(len(d) for d in docs) / len(docs)
    out = []
    for d in docs:
        s = 0.0
        for q in query:
            tf = d.count(q)
            s += idf.get(q, 0.0) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(d) / avgdl))
        out.append(s)
    return out


PASSAGES = [
    ["deploy", "rollback", "orders", "api", "rollback"],
    ["cache", "ttl", "seconds", "default", "300"],
    ["rollback", "the", "deploy", "with", "helm", "rollback", "command", "then", "verify"],
    [],
    ["redis", "failover", "sentinel"],
]


def test_idf_formula() -> None:
    assert bm25_idf(1000, 10) == pytest.approx(math.log(1 + (1000 - 10 + 0.5) / 10.5))
    assert bm25_idf(0, 0) == pytest.approx(math.log(1 + 1.5 / 0.5))  # an empty index counts as one chunk
    assert bm25_idf(100, 100) > 0  # the non-negative form: a word in every chunk still counts a little
    assert bm25_idf(100, 1) > bm25_idf(100, 50)
    # a term the index never saw counts as occurring once
    assert kb_idf(["ghost", "deploy"], {"deploy": 7}, 100) == {"ghost": bm25_idf(100, 1), "deploy": bm25_idf(100, 7)}


def test_scores_equal_okapi_with_kb_idf() -> None:
    df, n = {"deploy": 40, "rollback": 12, "helm": 3}, 500
    query = ["rollback", "deploy", "helm", "unknown"]
    expected = okapi(PASSAGES, query, kb_idf(set(query), df, n))
    assert bm25_scores(PASSAGES, query, df, n) == pytest.approx(expected, rel=1e-12)


def test_without_an_index_the_passages_are_the_statistics() -> None:
    """Intended change: the no-index fallback uses the same Lucene IDF (over the passages) instead of
    rank-bm25's own formula with its epsilon floor, so a word in most passages still counts a little."""
    query = ["rollback", "deploy"]
    local = {"rollback": 2, "deploy": 2}
    expected = okapi(PASSAGES, query, {t: bm25_idf(len(PASSAGES), local[t]) for t in query})
    scores = bm25_scores(PASSAGES, query, {}, 0)
    assert scores == pytest.approx(expected, rel=1e-12)
    assert scores[0] > 0 and scores[2] > 0 and scores[1] == 0


def test_edge_cases() -> None:
    assert bm25_scores([], ["x"], {}, 0) == []
    assert bm25_scores(PASSAGES, [], {"x": 1}, 10) == [0.0] * len(PASSAGES)


def test_no_private_override_of_rank_bm25() -> None:
    import inspect

    import kb_agent.retrieval.lexical as lexical

    assert "_calc_idf" not in inspect.getsource(lexical)
    assert not [c for c in vars(lexical).values() if inspect.isclass(c) and c.__module__ == lexical.__name__]


def test_grader_weights_use_the_same_idf(indexed_hash_kb: Path) -> None:
    from kb_agent.agent.grade import UNKNOWN_TERM_WEIGHT, idf_weights
    from kb_agent.index.store import IndexReader
    from tests.support.sample import hash_settings

    reader = IndexReader.open(hash_settings(indexed_hash_kb), indexed_hash_kb)
    try:
        cat = reader.catalog
        assert cat is not None
        n, _ = cat.bm25_stats()
        weights = idf_weights(cat.document_frequencies, n)(["rollback", "deploy", "zzzunseen"])
        df = cat.document_frequencies(["rollback", "deploy"])
        assert weights["rollback"] == pytest.approx(min(bm25_idf(n, df["rollback"]), UNKNOWN_TERM_WEIGHT - 0.01))
        assert weights["deploy"] == pytest.approx(min(bm25_idf(n, df["deploy"]), UNKNOWN_TERM_WEIGHT - 0.01))
        assert weights["zzzunseen"] == UNKNOWN_TERM_WEIGHT
    finally:
        reader.close()


def test_scores_are_rank_bm25s_floats_exactly() -> None:
    """The plain-Python Okapi (no numpy at start-up) gives rank-bm25's scores bit for bit."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from rank_bm25 import BM25Okapi

    from kb_agent.retrieval.lexical import okapi

    words = st.sampled_from(["deploy", "rollback", "cache", "ttl", "redis", "缓存", "x", "y"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.lists(words, max_size=30), min_size=1, max_size=12), st.lists(words, max_size=8),
           st.dictionaries(words, st.floats(min_value=0, max_value=20, allow_nan=False)))
    def check(passages: list[list[str]], query: list[str], idf: dict[str, float]) -> None:
        docs = [p or ["\x00"] for p in passages]
        ref = BM25Okapi(docs)
        ref.idf = idf
        assert okapi(docs, query, idf) == [float(s) for s in ref.get_scores(query)]

    check()


def test_search_imports_no_numpy() -> None:
    import subprocess
    import sys

    code = "import sys, kb_agent.retrieval.grep, kb_agent.retrieval.lexical; print('numpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"
