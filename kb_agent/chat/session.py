"""A chat session: the current thread, its search options, the warm agent, and turns that run in a
worker thread so the caller can abandon one (Ctrl-C) and carry on."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kb_agent.chat.condense import Condensed
from kb_agent.chat.memory import Memory, Turn
from kb_agent.chat.threads import ChatThreads, EventSink, TurnContext, check_thread_name, new_thread_name
from kb_agent.names import AUTO_TOOL, TOOL_NAMES
from kb_agent.retrieval.query import clean_query
from kb_agent.types import SearchFilters

if TYPE_CHECKING:
    from kb_agent.agent.answer import Answer
    from kb_agent.agent.engine import Engine
    from kb_agent.agent.execute import SearchTools
    from kb_agent.llm.base import ChatModel
    from kb_agent.settings import Settings

TOOLS = (AUTO_TOOL, *TOOL_NAMES)
# how often a waiting caller wakes up (it must stay responsive to Ctrl-C)
POLL_S = 0.05

SUMMARY_SYSTEM = """Summarise the earlier part of a conversation about the user's documents in at most
five short lines: what was asked and which files answered it. Reply with the summary only."""


class TurnCancelled(BaseException):
    """Raised inside an abandoned turn at its next event; a BaseException so no `except Exception` keeps it running."""


@dataclass(frozen=True, slots=True)
class TurnResult:
    """A finished turn."""

    answer: Answer
    condensed: Condensed
    state: dict[str, Any]


class PendingTurn:
    """A turn running in a worker thread."""

    def __init__(self, target: Callable[[EventSink], TurnResult], on_event: EventSink | None, on_done: Callable[[], None]) -> None:
        self.cancelled = threading.Event()
        self._result: TurnResult | None = None
        self._error: BaseException | None = None
        self._on_event = on_event
        self._on_done = on_done
        self._thread = threading.Thread(target=self._run, args=(target,), name="kb-chat-turn", daemon=True)
        self._thread.start()

    def _guard(self, event: dict[str, Any]) -> None:
        if self.cancelled.is_set():
            raise TurnCancelled()
        if self._on_event is not None:
            self._on_event(event)

    def _run(self, target: Callable[[EventSink], TurnResult]) -> None:
        try:
            self._result = target(self._guard)
        except BaseException as e:  # handed to the waiting caller
            self._error = e
        finally:
            self._on_done()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def wait(self) -> TurnResult:
        """Block until the turn ends (interruptible by KeyboardInterrupt in the calling thread).

        Raises:
            TurnCancelled: the turn was cancelled.
            Exception: whatever the turn raised (KbError for bad input, a corrupt store, …).
        """
        while self._thread.is_alive():
            self._thread.join(POLL_S)
        if self._error is not None:
            raise self._error
        if self.cancelled.is_set() or self._result is None:
            raise TurnCancelled()
        return self._result

    def cancel(self) -> None:
        """Abandon the turn: it stops at its next event and nothing of it is persisted."""
        self.cancelled.set()


class ChatSession:
    """One `kb chat` process: the thread in use, the options of `/tool`, `/tag`, `/path`, and the agent.

    Args:
        settings: loaded settings (the KB root comes from them).
        thread: the thread to resume or create; a fresh name when None.
        tools: retrieval tools to use instead of opening the index (tests inject slow or fake ones).
        model: the chat model instead of the configured one.

    Raises:
        IndexNotBuilt: the KB has no index.
        ChatStoreCorrupt: the chat database is unreadable.
    """

    def __init__(self, settings: Settings, *, thread: str | None = None, tools: SearchTools | None = None,
                 model: ChatModel | None = None) -> None:
        from kb_agent.llm.registry import create_chat_model
        from kb_agent.llm.retry import RetryPolicy

        self.settings = settings
        self.root = settings.kb_root()
        self.store = ChatThreads(self.root)
        if tools is None:
            from kb_agent.retrieval.tools import Retriever

            tools = Retriever(settings)
            self._own_tools = True
        else:
            self._own_tools = False
        self.tools: SearchTools = tools
        self.model = model if model is not None else create_chat_model(settings)
        self.policy = RetryPolicy(max_retries=settings.llm_max_retries)
        self.engine = self._new_engine()
        self._retired: list[Engine] = []
        self._pending: PendingTurn | None = None
        self._lock = threading.Lock()
        self.thread = check_thread_name(thread) if thread else new_thread_name(self._names())
        self.tool = "auto"
        self.tags: tuple[str, ...] = ()
        self.paths: tuple[str, ...] = ()
        self.last_answer: Answer | None = None  # this process's last answer (full trace)
        self.last_condensed: Condensed | None = None

    # ---- threads ----

    def _names(self) -> set[str]:
        return {t.name for t in self.store.threads()}

    @property
    def memory(self) -> Memory:
        return self.store.memory(self.thread)

    @property
    def last(self) -> dict[str, Any] | None:
        """The thread's last answer as persisted (text, citations, standalone question)."""
        last = self.store.state(self.thread).get("last")
        return last if isinstance(last, dict) else None

    def switch(self, name: str | None) -> bool:
        """Use thread `name` (a new one when None); True when it already had turns."""
        self.thread = check_thread_name(name) if name else new_thread_name(self._names())
        self.last_answer, self.last_condensed = None, None
        return bool(self.memory.total_turns)

    def clear(self) -> None:
        """Forget this thread's conversation and reset the options."""
        self.store.clear(self.thread)
        self.last_answer, self.last_condensed = None, None
        self.tool, self.tags, self.paths = "auto", (), ()

    def reopen_store(self) -> None:
        """Open the chat database again (after a bad one was moved aside) and start a fresh thread."""
        self.store.close()
        self.store = ChatThreads(self.root)
        self.switch(None)

    # ---- turns ----

    @property
    def filters(self) -> SearchFilters:
        return SearchFilters(tags=self.tags, path_globs=self.paths)

    def start_turn(self, question: str, *, on_event: EventSink | None = None) -> PendingTurn:
        """Start answering `question` in a worker thread; `wait()` on the result, `cancel()` to abandon it.

        Raises:
            InvalidQuery: the message is empty once cleaned, or too long (nothing is started).
        """
        question = clean_query(question, noun="message", example="how do I roll back a deploy?")
        with self._lock:
            if self._pending is not None and self._pending.alive:
                # the abandoned turn still holds the agent: give it a fresh one, close the old one later
                self._retired.append(self.engine)
                self.engine = self._new_engine()
        engine = self.engine
        thread = self.thread
        ctx = TurnContext(engine=engine, tool=self.tool, filters=self.filters, model=self.model, policy=self.policy,
                          summarize=self._summarizer())

        def target(sink: EventSink) -> TurnResult:
            ctx.on_event = sink
            state = self.store.run_turn(thread, question, ctx)
            assert ctx.answer is not None and ctx.condensed is not None
            return TurnResult(ctx.answer, ctx.condensed, state)

        pending = PendingTurn(target, on_event, on_done=lambda: self._turn_done(engine))
        self._pending = pending
        return pending

    def ask(self, question: str, *, on_event: EventSink | None = None) -> TurnResult:
        """Answer one question in the current thread and wait for it."""
        result = self.start_turn(question, on_event=on_event).wait()
        self.last_answer, self.last_condensed = result.answer, result.condensed
        return result

    def record(self, result: TurnResult) -> None:
        """Keep a finished turn's full answer for /trace and /sources."""
        self.last_answer, self.last_condensed = result.answer, result.condensed

    @property
    def busy(self) -> bool:
        """An abandoned turn is still winding down in the background."""
        return self._pending is not None and self._pending.alive

    def _turn_done(self, engine: Engine) -> None:
        with self._lock:
            if engine in self._retired:
                self._retired.remove(engine)
                engine.close()

    def _new_engine(self) -> Engine:
        from kb_agent.agent.engine import Engine

        return Engine(self.settings, model=self.model, tools=self.tools)

    def _summarizer(self) -> Callable[[str, Sequence[Turn]], str] | None:
        if getattr(self.model, "offline", True):
            return None
        model, policy = self.model, self.policy

        def summarize(previous: str, turns: Sequence[Turn]) -> str:
            from kb_agent.llm.base import Message
            from kb_agent.llm.retry import complete_with_retry

            lines = [f"Summary so far: {previous}"] if previous else []
            lines += [f"Q: {t.standalone or t.question}\nA: {t.answer[:400]}" for t in turns]
            return complete_with_retry(model, [Message("system", SUMMARY_SYSTEM), Message("user", "\n\n".join(lines))], policy=policy)

        return summarize

    def close(self) -> None:
        """Release the agent, the index and the database (an abandoned turn keeps what it holds)."""
        if not self.busy:
            self.engine.close()
            if self._own_tools:
                close = getattr(self.tools, "close", None)
                if close is not None:
                    close()
        self.store.close()
