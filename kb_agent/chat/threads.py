"""Persistent chat threads: the conversation graph (one `turn` node that condenses the question, runs
the agent and updates memory) compiled with LangGraph's SQLite checkpointer under `.kb/chat.sqlite`,
one checkpoint history per thread name."""

from __future__ import annotations

import contextvars
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from kb_agent.chat.condense import Condensed, condense, turn_from
from kb_agent.chat.memory import Memory, Summarizer
from kb_agent.errors import KbError, UsageError
from kb_agent.names import index_dir

if TYPE_CHECKING:
    from langgraph.runtime import Runtime

    from kb_agent.agent.answer import Answer
    from kb_agent.agent.engine import Engine
    from kb_agent.llm.base import ChatModel
    from kb_agent.llm.retry import RetryPolicy
    from kb_agent.types import SearchFilters

CHAT_DB = "chat.sqlite"
THREAD_NAME = re.compile(r"^[\w][\w.-]{0,63}$")
EventSink = Callable[[dict[str, Any]], None]


class ChatStoreCorrupt(KbError):
    """The chat database cannot be read (not SQLite, truncated, or a foreign schema)."""


class ChatState(TypedDict, total=False):
    """What one thread persists: its memory and the last answer (the question is this turn's input)."""

    question: str
    turns: list[dict[str, Any]]
    summary: str
    total_turns: int
    last: dict[str, Any] | None


@dataclass
class TurnContext:
    """What a turn needs besides the state (LangGraph runtime context); the node leaves its results here."""

    engine: Engine
    tool: str = "auto"
    filters: SearchFilters | None = None
    model: ChatModel | None = None  # condensation and summaries when online
    policy: RetryPolicy | None = None
    summarize: Summarizer | None = None
    on_event: EventSink | None = None
    answer: Answer | None = field(default=None)
    condensed: Condensed | None = field(default=None)


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    """A thread as `/threads` lists it."""

    name: str
    turns: int
    last_question: str
    updated: str  # checkpoint timestamp (ISO)


def turn(state: ChatState, runtime: Runtime[TurnContext]) -> dict[str, Any]:
    """Condense the question against the thread's memory, answer it with the agent, remember the turn."""
    ctx = runtime.context
    memory = Memory.from_state(dict(state))
    question = state.get("question", "")
    condensed = condense(question, memory, model=ctx.model, policy=ctx.policy)
    ctx.condensed = condensed
    if ctx.on_event:
        ctx.on_event({"type": "progress", "node": "condense", "status": "done", "detail": condensed.method})
    # a fresh context: the agent's own graph must not run as a checkpointed subgraph of this one
    answer = contextvars.Context().run(
        ctx.engine.answer_query, condensed.question, tool=ctx.tool, filters=ctx.filters, on_event=ctx.on_event
    )
    ctx.answer = answer
    sources = tuple(c.location for c in answer.citations)
    memory = memory.remember(turn_from(condensed, answer.text, sources), summarize=ctx.summarize)
    from kb_agent.render.json import citation_dict

    last = {
        "question": question, "standalone": condensed.question, "condense": condensed.method, "note": condensed.note,
        "text": answer.text, "citations": [citation_dict(c) for c in answer.citations], "answer_source": answer.answer_source,
        "fallback_reason": answer.fallback_reason,
    }
    return {**memory.to_state(), "last": last}


def build_chat_graph(checkpointer: Any) -> Any:
    """Compile the conversation graph: START → turn → END, state persisted per thread_id."""
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(ChatState, context_schema=TurnContext)
    builder.add_node("turn", turn)
    builder.add_edge(START, "turn")
    builder.add_edge("turn", END)
    return builder.compile(checkpointer=checkpointer, name="kb_chat")


def chat_state_dir(root: Path) -> tuple[Path, str | None]:
    """Where a KB's chat state lives: its `.kb/`, or, when that cannot be written (a read-only
    mount, a shared drive), the user's state directory (`$XDG_STATE_HOME/kb/`, else
    `~/.local/state/kb/`), one folder per KB path.

    Returns:
        The folder, and a one-line note saying why it is not `.kb/` (None when it is).
    """
    import hashlib
    import os

    from kb_agent.corpus.fileio import unwritable_reason

    kb_dir = index_dir(root)
    why = unwritable_reason(kb_dir if kb_dir.is_dir() else root)
    if why is None:
        return kb_dir, None
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "kb"
    resolved = root.resolve()
    folder = base / f"{resolved.name or 'root'}-{hashlib.sha256(str(resolved).encode()).hexdigest()[:12]}"
    return folder, f"{kb_dir} cannot be written ({why}); chat history is kept in {folder}"


class ChatThreads:
    """The chat database of one knowledge base: threads, their memory, and running a turn in one.

    Raises (from every method):
        ChatStoreCorrupt: the database file is unreadable.
    """

    def __init__(self, root: Path) -> None:
        folder, self.note = chat_state_dir(root)
        self.path = folder / CHAT_DB
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise KbError(f"cannot keep chat history in {folder}: {e.strerror or e}", hint="set XDG_STATE_HOME to a writable folder") from None
        self._conn: sqlite3.Connection | None = None
        try:
            from langgraph.checkpoint.sqlite import SqliteSaver

            self._conn = sqlite3.connect(str(self.path), check_same_thread=False)
            row = self._conn.execute("PRAGMA quick_check").fetchone()
            if not row or row[0] != "ok":
                raise sqlite3.DatabaseError(str(row[0]) if row else "integrity check failed")
            self.saver = SqliteSaver(self._conn)
            self.saver.setup()
            self._conn.execute("SELECT thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata FROM checkpoints LIMIT 1").fetchall()
        except sqlite3.Error as e:
            self.close()
            raise self._corrupt(e) from None
        self.graph = build_chat_graph(self.saver)

    def _corrupt(self, e: BaseException) -> ChatStoreCorrupt:
        return ChatStoreCorrupt(f"the chat database {self.path} is unreadable ({e})",
                                hint="it can be moved aside and a fresh thread started; nothing else in .kb/ is affected")

    @staticmethod
    def config(thread: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": thread}}

    def state(self, thread: str) -> dict[str, Any]:
        """The thread's persisted state ({} for a thread that does not exist yet)."""
        try:
            return dict(self.graph.get_state(self.config(thread)).values or {})
        except sqlite3.Error as e:
            raise self._corrupt(e) from None
        except Exception as e:  # undecodable checkpoint blobs
            raise self._corrupt(e) from None

    def memory(self, thread: str) -> Memory:
        return Memory.from_state(self.state(thread))

    def exists(self, thread: str) -> bool:
        return any(t.name == thread for t in self.threads())

    def threads(self) -> list[ThreadInfo]:
        """Every thread, most recently used first."""
        try:
            assert self._conn is not None
            rows = self._conn.execute(
                "SELECT thread_id, MAX(checkpoint_id) AS latest FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY latest DESC"
            ).fetchall()
        except sqlite3.Error as e:
            raise self._corrupt(e) from None
        out = []
        for (name, _latest) in rows:
            snap = self.graph.get_state(self.config(name))
            values = dict(snap.values or {})
            turns = int(values.get("total_turns") or 0)
            if not turns and not values.get("turns"):
                continue  # cleared threads are not listed
            last = (values.get("last") or {}).get("question", "")
            out.append(ThreadInfo(name, turns, str(last), str(snap.created_at or "")[:19].replace("T", " ")))
        return out

    def run_turn(self, thread: str, question: str, ctx: TurnContext) -> dict[str, Any]:
        """Run one turn in `thread` (the new state is checkpointed only if the turn completes)."""
        try:
            result: dict[str, Any] = self.graph.invoke({"question": question}, self.config(thread), context=ctx)
            return result
        except sqlite3.Error as e:
            raise self._corrupt(e) from None

    def clear(self, thread: str) -> None:
        """Forget a thread's conversation."""
        try:
            self.saver.delete_thread(thread)
        except sqlite3.Error as e:
            raise self._corrupt(e) from None

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None


def quarantine(path: Path) -> Path:
    """Move a bad chat database (and its -wal/-shm/-journal files) aside; return where it went."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    path.replace(target)
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.replace(target.with_name(target.name + suffix))
    return target


def check_thread_name(name: str) -> str:
    """A valid thread name (letters, digits, `_`, `.`, `-`; up to 64 characters).

    Raises:
        UsageError: anything else.
    """
    if not THREAD_NAME.match(name):
        raise UsageError(f"invalid thread name {name!r}", hint="use letters, digits, '_', '.' or '-' (up to 64 characters)")
    return name


def new_thread_name(existing: set[str]) -> str:
    """A fresh name for `kb chat` / `/new` without one: the date and time, made unique."""
    base = time.strftime("chat-%Y%m%d-%H%M%S")
    name, n = base, 1
    while name in existing:
        n += 1
        name = f"{base}-{n}"
    return name
