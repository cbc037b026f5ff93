"""Calling a chat model safely: retries with backoff and jitter on transient faults, a total time budget
per question (a server that timed out is not asked again), JSON validated against a pydantic schema with
one repair try, and a call counter for traces."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from kb_agent.errors import LlmError
from kb_agent.llm.base import ChatModel, Message, TokenSink

T = TypeVar("T", bound=BaseModel)

# first retry after ~0.5 s, doubling; capped so a flaky server cannot stall a question for minutes
BASE_DELAY_S = 0.5
MAX_DELAY_S = 8.0
TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# a reply is cut to this many characters when quoted back to the model for repair
REPAIR_ECHO_CHARS = 1500


class ModelOutputInvalid(LlmError):
    """The model's reply was not valid JSON for the schema, even after one repair try."""


class ModelDeadlineReached(LlmError):
    """The question's model time budget is spent, or the server timed out earlier in this question."""


class QuestionBudget:
    """The model's total time for one question, and whether its server already timed out.

    Args:
        seconds: the budget (KB_LLM_DEADLINE_S).
        clock: a monotonic clock (tests pass a fake one).
    """

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.deadline = clock() + seconds
        self.timed_out = False

    def remaining(self) -> float:
        return max(0.0, self.deadline - self.clock())

    def refusal(self) -> str | None:
        """Why the model may not be asked now, or None."""
        if self.timed_out:
            return "the model server timed out earlier in this question; it is not asked again"
        if self.remaining() <= 0:
            return f"the model's time budget of {self.seconds:g}s for this question is spent (KB_LLM_DEADLINE_S)"
        return None


class MeteredModel:
    """Wraps a ChatModel and counts its calls (thread-safe); traces report the count."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.name = inner.name
        self.offline = inner.offline
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, messages: Sequence[Message], *, json_mode: bool = False, on_token: TokenSink | None = None) -> str:
        """Count the call, then delegate to the wrapped model."""
        with self._lock:
            self.calls += 1
        return self.inner.complete(messages, json_mode=json_mode, on_token=on_token)


def is_transient(exc: BaseException) -> bool:
    """True for faults worth retrying: connection errors, timeouts, HTTP 5xx and 429.

    Works on the exception types of openai, httpx, requests and the stdlib by their names and
    status codes, so no client library needs to be imported here.
    """
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    status = getattr(exc, "status_code", None)
    if status is None:
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    if isinstance(status, int):
        return status in TRANSIENT_STATUS or status >= 500
    names = {cls.__name__ for cls in type(exc).__mro__}
    transient_names = {
        "APIConnectionError", "APITimeoutError", "ConnectError", "ConnectTimeout", "ReadTimeout",
        "ReadError", "RemoteProtocolError", "TimeoutException", "NetworkError", "ResponseError",
        "ServerDisconnectedError", "IncompleteRead",
    }
    return bool(names & transient_names)


@dataclass
class RetryPolicy:
    """How often and how patiently to retry a transient fault."""

    max_retries: int = 2
    base_delay_s: float = BASE_DELAY_S
    max_delay_s: float = MAX_DELAY_S
    sleep: Callable[[float], None] = time.sleep
    rng: Callable[[], float] = random.random
    # total model time per question; None: only the per-request timeout applies
    deadline_s: float | None = None
    budget: QuestionBudget | None = None

    def for_question(self) -> RetryPolicy:
        """A copy with a fresh QuestionBudget (when a deadline is set), for one question."""
        return replace(self, budget=QuestionBudget(self.deadline_s) if self.deadline_s else None)

    def delay(self, attempt: int) -> float:
        """Exponential backoff with full-range jitter (0.5x–1.5x) for retry number `attempt` (0-based)."""
        raw = min(self.max_delay_s, self.base_delay_s * (2**attempt))
        return float(raw * (0.5 + self.rng()))


def complete_with_retry(
    model: ChatModel,
    messages: Sequence[Message],
    *,
    policy: RetryPolicy,
    json_mode: bool = False,
    on_token: TokenSink | None = None,
    notes: list[str] | None = None,
) -> str:
    """Call the model, retrying transient faults with backoff.

    Args:
        model: the chat model.
        messages: the prompt.
        policy: retry count and delays.
        json_mode: request JSON output.
        on_token: streaming callback.
        notes: receives one line per retried fault (for the trace).

    Returns:
        The reply text.

    Raises:
        ModelDeadlineReached: the question's budget is spent or the server timed out before.
        LlmError: a non-transient fault, or transient faults beyond `policy.max_retries`.
    """
    budget = policy.budget
    attempt = 0
    while True:
        if budget is not None and (why := budget.refusal()) is not None:
            raise ModelDeadlineReached(why)
        try:
            if budget is None:
                return model.complete(messages, json_mode=json_mode, on_token=on_token)
            return _complete_within(model, messages, json_mode, on_token, budget)
        except LlmError:
            raise
        except Exception as e:  # client libraries raise many types; classify, never leak
            summary = _describe(e)
            if budget is not None and _is_timeout(e):
                budget.timed_out = True
                raise ModelDeadlineReached(f"the model server timed out ({summary}); it is not asked again in this question") from e
            if not is_transient(e) or attempt >= policy.max_retries:
                raise LlmError(f"chat model call failed: {summary}", hint="check KB_LLM_BASE_URL / the model server") from e
            wait = policy.delay(attempt)
            if budget is not None and wait >= budget.remaining():
                raise LlmError(f"chat model call failed: {summary}; no time left in the budget to retry") from e
            if notes is not None:
                notes.append(f"transient fault ({summary}); retry {attempt + 1} after {wait:.2f}s")
            policy.sleep(wait)
            attempt += 1


def _is_timeout(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return isinstance(exc, TimeoutError) or bool(names & {"APITimeoutError", "Timeout", "TimeoutException", "ReadTimeout", "ConnectTimeout", "WriteTimeout", "PoolTimeout"})


def _complete_within(
    model: ChatModel, messages: Sequence[Message], json_mode: bool, on_token: TokenSink | None, budget: QuestionBudget
) -> str:
    """One model call that returns by the budget's deadline, whatever the client's own timeouts.

    The call runs in a daemon thread; past the deadline it is abandoned (its late tokens are
    dropped, it cannot hold the process at exit) and the server is marked as timed out.
    """
    box: dict[str, object] = {}
    open_sink = threading.Event()
    open_sink.set()

    def sink(piece: str) -> None:
        if open_sink.is_set() and on_token is not None:
            on_token(piece)

    def run() -> None:
        try:
            box["reply"] = model.complete(messages, json_mode=json_mode, on_token=sink if on_token is not None else None)
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    worker = threading.Thread(target=run, name="kb-model-call", daemon=True)
    worker.start()
    worker.join(budget.remaining())
    if worker.is_alive():
        open_sink.clear()
        budget.timed_out = True
        raise ModelDeadlineReached(
            f"no reply within the model's time budget of {budget.seconds:g}s (KB_LLM_DEADLINE_S); "
            "the server is not asked again in this question"
        )
    error = box.get("error")
    if isinstance(error, BaseException):
        raise error
    return str(box["reply"])


@dataclass(frozen=True)
class Structured(Generic[T]):
    """A validated structured reply and whether it needed the repair try."""

    value: T
    repaired: bool


def complete_structured(
    model: ChatModel,
    messages: Sequence[Message],
    schema: type[T],
    *,
    policy: RetryPolicy,
    notes: list[str] | None = None,
    check: Callable[[T], None] | None = None,
) -> Structured[T]:
    """Ask for JSON matching `schema`; on an invalid reply ask once to repair it.

    Args:
        model: the chat model.
        messages: the prompt (it should describe the JSON shape).
        schema: the pydantic model the reply must validate against.
        policy: retry policy for transient faults (each call retries separately).
        notes: receives trace lines about retries and repairs.
        check: extra validation beyond the schema (e.g. one score per item); raises ValueError.

    Returns:
        The validated value.

    Raises:
        ModelOutputInvalid: the reply and the repaired reply were both invalid.
        LlmError: the model could not be reached.
    """
    text = complete_with_retry(model, messages, policy=policy, json_mode=True, notes=notes)
    try:
        return Structured(_validated(text, schema, check), repaired=False)
    except ValueError as first:
        if notes is not None:
            notes.append(f"invalid JSON from model ({_short(str(first))}); one repair try")
        repair = [
            *messages,
            Message("assistant", text[:REPAIR_ECHO_CHARS]),
            Message(
                "user",
                "That reply was not valid JSON for the required shape "
                f"({_short(str(first))}). Reply again with only the JSON, no prose and no code fence.",
            ),
        ]
        text2 = complete_with_retry(model, repair, policy=policy, json_mode=True, notes=notes)
        try:
            return Structured(_validated(text2, schema, check), repaired=True)
        except ValueError as second:
            raise ModelOutputInvalid(f"model reply is not valid JSON after one repair: {_short(str(second))}") from None


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def extract_json(text: str) -> object:
    """The first JSON value in `text`: the whole reply, a ```json fence, or the outermost {...}/[...].

    Raises:
        ValueError: no parseable JSON value found.
    """
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for open_ch, close_ch in (("{", "}"), ("[", "]")):
        start, end = text.find(open_ch), text.rfind(close_ch)
        if 0 <= start < end:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        if not candidate:
            continue
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    raise ValueError("no JSON value in the reply")


def _validated(text: str, schema: type[T], check: Callable[[T], None] | None) -> T:
    value = parse_json_as(text, schema)
    if check is not None:
        check(value)
    return value


def parse_json_as(text: str, schema: type[T]) -> T:
    """Parse and validate a reply.

    Raises:
        ValueError: not JSON, or not valid for `schema` (pydantic's ValidationError is a ValueError).
    """
    data = extract_json(text)
    try:
        return schema.model_validate(data)
    except ValidationError as e:
        raise ValueError(f"schema mismatch: {e.errors()[0].get('msg', 'invalid')}") from None


def _describe(e: BaseException) -> str:
    return _short(f"{type(e).__name__}: {e}")


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
