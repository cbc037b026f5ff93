"""Retries with backoff on transient faults, JSON validation with one repair try, the registry."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from kb_agent.agent.schemas import GradeBatch, RouteDecision
from kb_agent.errors import ConfigError, LlmError
from kb_agent.llm.base import ChatModel, Message, TokenSink
from kb_agent.llm.registry import create_chat_model, provider_names, register_provider
from kb_agent.llm.retry import (
    MeteredModel,
    ModelOutputInvalid,
    RetryPolicy,
    complete_structured,
    complete_with_retry,
    extract_json,
    is_transient,
)
from kb_agent.settings import Settings


class Replay:
    name = "replay"
    offline = False

    def __init__(self, *replies: object) -> None:
        self.replies = list(replies)
        self.seen: list[list[Message]] = []

    def complete(self, messages: Sequence[Message], *, json_mode: bool = False, on_token: TokenSink | None = None) -> str:
        self.seen.append(list(messages))
        r = self.replies.pop(0)
        if isinstance(r, BaseException):
            raise r
        return str(r)


class HttpError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status


def policy(retries: int, slept: list[float]) -> RetryPolicy:
    return RetryPolicy(max_retries=retries, base_delay_s=0.5, sleep=slept.append, rng=lambda: 0.5)


@pytest.mark.parametrize(
    ("exc", "transient"),
    [(ConnectionError(), True), (TimeoutError(), True), (HttpError(500), True), (HttpError(503), True),
     (HttpError(429), True), (HttpError(400), False), (HttpError(401), False), (ValueError("bad"), False)],
)
def test_is_transient(exc: BaseException, transient: bool) -> None:
    assert is_transient(exc) is transient


def test_transient_faults_retry_with_exponential_backoff() -> None:
    slept: list[float] = []
    model = Replay(ConnectionError("down"), HttpError(502), "ok")
    notes: list[str] = []
    assert complete_with_retry(model, [Message("user", "hi")], policy=policy(2, slept), notes=notes) == "ok"
    assert slept == [0.5, 1.0]  # base * 2**attempt, jitter factor 1.0 at rng=0.5
    assert len(notes) == 2 and "retry 1" in notes[0]


def test_jitter_spreads_delays() -> None:
    p = RetryPolicy(base_delay_s=1.0, rng=lambda: 0.0)
    q = RetryPolicy(base_delay_s=1.0, rng=lambda: 0.999)
    assert p.delay(2) == 2.0 and q.delay(2) == pytest.approx(5.996)
    assert RetryPolicy(base_delay_s=1.0, max_delay_s=3.0, rng=lambda: 0.5).delay(10) == 3.0


def test_gives_up_after_max_retries_with_llm_error() -> None:
    slept: list[float] = []
    with pytest.raises(LlmError, match="ConnectionError"):
        complete_with_retry(Replay(*[ConnectionError("x")] * 3), [Message("user", "q")], policy=policy(2, slept))
    assert len(slept) == 2


def test_non_transient_fault_is_not_retried() -> None:
    slept: list[float] = []
    with pytest.raises(LlmError):
        complete_with_retry(Replay(HttpError(401), "never"), [Message("user", "q")], policy=policy(3, slept))
    assert slept == []


def test_structured_accepts_fenced_json_and_bare_array() -> None:
    slept: list[float] = []
    m = Replay('Here:\n```json\n{"query_type": "exact", "grep_keywords": ["a.b"], "suggested_tools": ["grep", "teleport"]}\n```')
    r = complete_structured(m, [Message("user", "q")], RouteDecision, policy=policy(0, slept))
    assert r.value.query_type == "exact" and r.value.suggested_tools == ["grep"] and not r.repaired
    g = complete_structured(Replay("[0.1, 0.9]"), [Message("user", "q")], GradeBatch, policy=policy(0, slept))
    assert g.value.scores == [0.1, 0.9]


def test_invalid_json_one_repair_then_raise() -> None:
    slept: list[float] = []
    m = Replay("no json here", '{"scores": [0.5]}')
    r = complete_structured(m, [Message("user", "q")], GradeBatch, policy=policy(0, slept))
    assert r.repaired and r.value.scores == [0.5]
    assert "not valid JSON" in m.seen[1][-1].content and m.seen[1][-2].role == "assistant"
    with pytest.raises(ModelOutputInvalid):
        complete_structured(Replay("nope", '{"scores": [7]}'), [Message("user", "q")], GradeBatch, policy=policy(0, slept))


def test_extract_json_rejects_prose() -> None:
    with pytest.raises(ValueError):
        extract_json("I cannot help with that.")
    assert extract_json('prefix {"a": 1} suffix') == {"a": 1}


def test_metered_model_counts_calls() -> None:
    m = MeteredModel(Replay("a", "b"))
    m.complete([Message("user", "1")])
    m.complete([Message("user", "2")])
    assert m.calls == 2 and m.name == "replay"


def test_registry_builtins_and_third_party_provider() -> None:
    assert {"none", "openai", "ollama", "llamacpp"} <= set(provider_names())

    def factory(settings: Settings) -> ChatModel:
        return Replay("echo")

    register_provider("echo-test", factory)
    s = Settings(llm_provider="none", _env_file=None)  # type: ignore[call-arg]
    assert create_chat_model(s).offline
    object.__setattr__(s, "llm_provider", "echo-test")
    assert create_chat_model(s).complete([Message("user", "x")]) == "echo"
    object.__setattr__(s, "llm_provider", "nope")
    with pytest.raises(ConfigError, match="unknown chat-model provider"):
        create_chat_model(s)


def test_llamacpp_provider_needs_a_model_path() -> None:
    s = Settings(llm_provider="llamacpp", _env_file=None)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match="KB_LLM_MODEL_PATH"):
        create_chat_model(s)
    s2 = Settings(llm_provider="llamacpp", llm_model_path="/nonexistent.gguf", _env_file=None)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match="not found"):
        create_chat_model(s2)


def test_openai_provider_builds_without_network() -> None:
    s = Settings(llm_provider="openai", llm_base_url="http://127.0.0.1:9/v1", llm_model="m", _env_file=None)  # type: ignore[call-arg]
    model = create_chat_model(s)
    assert model.name == "openai:m" and not model.offline
