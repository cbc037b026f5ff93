"""The model's time budget per question (KB_LLM_DEADLINE_S): a hung, slow or failing server costs at most
the budget, a server that timed out is not asked again in the same question, and the deterministic path
answers. Real `kb` processes against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.support.fake_openai import FakeOpenAI, Script
from tests.hostile.kb_process import Home, make_kb, run_kb

from kb_agent.llm.base import Message, TokenSink
from kb_agent.llm.retry import ModelDeadlineReached, QuestionBudget, RetryPolicy, complete_with_retry

QUESTION = "When do production deploys run?"
# process start, imports and the offline answer on a loaded 2-core machine
MARGIN_S = 20.0


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    h = Home(tmp_path_factory.mktemp("home"))
    h.config.mkdir(parents=True, exist_ok=True)
    return h


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, home: Home) -> Path:
    return make_kb(tmp_path_factory.mktemp("deadline"), home)


def timed_ask(kb: Path, home: Home, server: FakeOpenAI, **settings: str) -> tuple[float, dict[str, Any]]:
    env = home.env(KB_LLM_PROVIDER="openai", KB_LLM_BASE_URL=server.url, **settings)
    t0 = time.monotonic()
    r = run_kb(["ask", "--kb", str(kb), "--json", QUESTION], env=env, cwd=kb.parent, timeout=300)
    elapsed = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    doc: dict[str, Any] = json.loads(r.stdout)
    return elapsed, doc


def notes(doc: dict[str, Any]) -> str:
    return " | ".join(n for t in doc["trace"] for n in t["notes"])


def test_a_hung_server_costs_the_deadline_and_is_asked_once(kb: Path, home: Home) -> None:
    with FakeOpenAI(Script(mode="hang")) as server:
        elapsed, doc = timed_ask(kb, home, server, KB_LLM_DEADLINE_S="3")
        asked = len(server.requests)
    assert elapsed < 3 + MARGIN_S, f"took {elapsed:.1f}s with a 3 s budget"
    assert asked == 1, f"the hung server was asked {asked} times"
    assert doc["answer_source"] == "kb" and doc["citations"] and "Tuesday" in doc["answer"]
    assert "time budget" in notes(doc) and "not asked again" in notes(doc)


def test_a_request_timeout_marks_the_server_and_it_is_not_asked_again(kb: Path, home: Home) -> None:
    with FakeOpenAI(Script(mode="hang")) as server:
        elapsed, doc = timed_ask(kb, home, server, KB_LLM_TIMEOUT_S="1", KB_LLM_MAX_RETRIES="3")
        asked = len(server.requests)
    assert asked == 1, "a timed-out server is not retried nor asked by the next node"
    assert elapsed < 1 + MARGIN_S
    assert doc["answer_source"] == "kb" and "timed out" in notes(doc)


def test_http_500s_fall_back_with_bounded_retries(kb: Path, home: Home) -> None:
    with FakeOpenAI(Script(mode="500")) as server:
        _elapsed, doc = timed_ask(kb, home, server, KB_LLM_MAX_RETRIES="1")
        asked = len(server.requests)
    assert doc["answer_source"] == "kb" and "Tuesday" in doc["answer"]
    assert 2 <= asked <= 6, f"{asked} requests: each model call is tried at most twice"
    assert "fell back" in notes(doc)


def test_retries_stop_when_the_budget_cannot_cover_the_backoff(kb: Path, home: Home) -> None:
    with FakeOpenAI(Script(mode="500")) as server:
        elapsed, doc = timed_ask(kb, home, server, KB_LLM_MAX_RETRIES="10", KB_LLM_DEADLINE_S="2")
    # ten retries would back off 0.5+1+2+4+8×6 s ≈ 55 s per call
    assert elapsed < 2 + MARGIN_S
    assert doc["answer_source"] == "kb"
    assert "no time left" in notes(doc) or "time budget" in notes(doc)


def test_a_slow_server_within_the_budget_is_used(kb: Path, home: Home) -> None:
    with FakeOpenAI(Script(delay_s=0.3)) as server:
        _elapsed, doc = timed_ask(kb, home, server, KB_LLM_DEADLINE_S="60")
    assert doc["model_calls"] >= 1 and "time budget" not in notes(doc)
    assert any(t["node"] == "synthesize" for t in doc["trace"])
    assert "extractive answer used" not in notes(doc), "the model's answer was used"


def test_the_deadline_must_be_positive(kb: Path, home: Home) -> None:
    r = run_kb(["ask", "--kb", str(kb), QUESTION], env=home.env(KB_LLM_DEADLINE_S="0"), cwd=kb.parent)
    assert r.returncode == 2 and "KB_LLM_DEADLINE_S" in r.stderr


class _Hang:
    """A chat model that streams one token, then stalls past any budget, then streams more."""

    name = "hang"
    offline = False

    def __init__(self, stall_s: float) -> None:
        self.stall_s = stall_s
        self.calls = 0
        self.done = threading.Event()

    def complete(self, messages: Sequence[Message], *, json_mode: bool = False, on_token: TokenSink | None = None) -> str:
        self.calls += 1
        if on_token:
            on_token("early ")
        time.sleep(self.stall_s)
        if on_token:
            on_token("late")
        self.done.set()
        return "early late"


def test_an_abandoned_call_leaks_no_late_tokens_and_blocks_later_calls() -> None:
    model = _Hang(stall_s=0.6)
    policy = RetryPolicy(max_retries=3, deadline_s=0.2).for_question()
    seen: list[str] = []
    t0 = time.monotonic()
    with pytest.raises(ModelDeadlineReached):
        complete_with_retry(model, [Message("user", "q")], policy=policy, on_token=seen.append)
    assert time.monotonic() - t0 < 0.5
    with pytest.raises(ModelDeadlineReached, match="not asked again"):
        complete_with_retry(model, [Message("user", "q")], policy=policy)
    assert model.done.wait(5)
    assert seen == ["early "] and model.calls == 1


def test_the_budget_is_per_question() -> None:
    clock = [100.0]
    budget = QuestionBudget(5, clock=lambda: clock[0])
    assert budget.refusal() is None and budget.remaining() == 5
    clock[0] += 6
    assert budget.refusal() is not None and "KB_LLM_DEADLINE_S" in (budget.refusal() or "")
    policy = RetryPolicy(deadline_s=5)
    first, second = policy.for_question(), policy.for_question()
    assert first.budget is not None and second.budget is not None and first.budget is not second.budget
    assert RetryPolicy().for_question().budget is None
