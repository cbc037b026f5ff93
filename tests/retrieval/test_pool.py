"""The question pool as a matching signal (issue 14): BM25 over the model-written questions, one more
ranked list in hybrid's RRF; absent without a model pool (hybrid ranks as before); filters; an open
reader picks up questions written after it opened; hits carry the model's questions first."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.index.build import build_index
from kb_agent.llm.questions import question_writer
from kb_agent.retrieval.pool import POOL_LIST, question_search
from kb_agent.retrieval.tools import Retriever
from kb_agent.types import SearchFilters
from tests.support.fakes import ScriptedModel
from tests.support.questions import answer_all, default_questions
from tests.support.sample import copy_indexed, hash_settings

# words no file of sample_kb holds: only the pool can match them
ASKED = "How do I recover from a botched mishap in production?"
QUERY = "recover from a botched mishap"


def _make(label: str, text: str) -> list[str]:
    if "nwctl deploy rollback orders-api" in text:
        return [ASKED, "Which release do I roll back to?"]
    return default_questions(label, text)


@pytest.fixture(scope="module")
def plain_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_kb indexed with the hash embedder and no model pool (read-only)."""
    from tests.support.sample import copy_sample

    root = copy_sample(tmp_path_factory.mktemp("plain") / "kb")
    build_index(hash_settings(root))
    return root


@pytest.fixture(scope="module")
def pooled_kb(plain_kb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same index plus questions from a scripted model (read-only)."""
    root = copy_indexed(plain_kb, tmp_path_factory.mktemp("pooled") / "kb")
    settings = hash_settings(root)
    writer = question_writer(settings, model=ScriptedModel({"questions": [lambda msgs: answer_all(msgs, make=_make)]}))
    report = build_index(settings, questions=writer)
    assert report.questions is not None and report.questions.chunks_waiting == 0
    return root


def test_a_pooled_question_finds_its_chunk_in_words_the_document_does_not_use(pooled_kb: Path, plain_kb: Path) -> None:
    with Retriever(hash_settings(pooled_kb)) as r:
        hits = question_search(r, QUERY, k=5)
        assert hits and hits[0].path == "runbooks/rollback.md" and hits[0].tool == POOL_LIST
        assert "nwctl deploy rollback orders-api" in hits[0].text and hits[0].explain["pool_question"] == ASKED
        fused = r.hybrid(QUERY, k=5)
    # one more list in RRF: the chunk only the pool found enters the top 5, ranked 1 there
    found = [h for h in fused if h.path == "runbooks/rollback.md" and h.start_line <= 31 <= h.end_line]
    assert found and found[0].explain["ranks"] == {POOL_LIST: 1}, [(h.location, h.explain) for h in fused]
    with Retriever(hash_settings(plain_kb)) as r:
        before = r.hybrid(QUERY, k=5)
    assert all(POOL_LIST not in h.explain.get("ranks", {}) for h in before)
    assert not any(h.path == "runbooks/rollback.md" and h.start_line <= 31 <= h.end_line for h in before)


def test_without_a_model_pool_there_is_no_pool_list(plain_kb: Path) -> None:
    with Retriever(hash_settings(plain_kb)) as r:
        # heading-derived questions are not indexed here: their words are in the lexical index already
        assert question_search(r, "How to roll back a deploy?", k=5) == []
        hits = r.hybrid("roll back a deploy", k=5)
    assert hits and all(set(h.explain["ranks"]) <= {"grep", "vector"} for h in hits)


def test_filters_apply_to_the_pool(pooled_kb: Path) -> None:
    with Retriever(hash_settings(pooled_kb)) as r:
        assert question_search(r, QUERY, k=5, filters=SearchFilters(path_globs=("adr/",))) == []
        only = question_search(r, QUERY, k=5, filters=SearchFilters(path_globs=("runbooks/",)))
    assert only and all(h.path.startswith("runbooks/") for h in only)


def test_hits_carry_the_model_questions_first(pooled_kb: Path) -> None:
    with Retriever(hash_settings(pooled_kb)) as r:
        vec = r.vector("roll back orders-api to an earlier release", k=10)
    rollback = next(h for h in vec if h.path == "runbooks/rollback.md" and h.start_line <= 31 <= h.end_line)
    assert rollback.questions[:2] == (ASKED, "Which release do I roll back to?")
    assert len(rollback.questions) == 3  # then the heading-derived one


def test_an_open_reader_sees_questions_written_after_it_opened(plain_kb: Path, tmp_path: Path) -> None:
    root = copy_indexed(plain_kb, tmp_path / "kb")
    settings = hash_settings(root)
    with Retriever(settings) as r:
        assert question_search(r, QUERY, k=5) == []
        writer = question_writer(settings, model=ScriptedModel({"questions": [lambda msgs: answer_all(msgs, make=_make)]}))
        build_index(settings, questions=writer)
        assert r.refresh()
        hits = question_search(r, QUERY, k=5)
    assert hits and hits[0].path == "runbooks/rollback.md"
