"""Conversation memory for one thread: the last turns verbatim plus a bounded summary of older ones,
as plain dicts so the LangGraph checkpointer can persist them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# turns kept word for word; older ones are folded into the summary so long threads stay bounded
RECENT_TURNS = 4
# the summary is cut from the front (oldest first) beyond this, so memory never grows without limit
SUMMARY_MAX_CHARS = 1500
# answers are stored cut to this; condensation and summaries only need their gist
ANSWER_KEEP_CHARS = 2000

Summarizer = Callable[[str, Sequence["Turn"]], str]


@dataclass(frozen=True, slots=True)
class Turn:
    """One question and its answer, as remembered by the thread."""

    question: str  # as typed
    standalone: str  # after follow-up condensation (what the agent searched for)
    answer: str  # the answer text (footer included)
    sources: tuple[str, ...] = ()  # "path:Lx-Ly" of the citations
    topic: str = ""  # what the turn was about, carried into follow-ups
    entities: tuple[str, ...] = ()  # identifiers the turn named (orders-api, cache.ttl_seconds)

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "standalone": self.standalone, "answer": self.answer,
                "sources": list(self.sources), "topic": self.topic, "entities": list(self.entities)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Turn:
        return cls(
            question=str(d.get("question", "")), standalone=str(d.get("standalone", "")), answer=str(d.get("answer", "")),
            sources=tuple(str(s) for s in d.get("sources", ())), topic=str(d.get("topic", "")),
            entities=tuple(str(e) for e in d.get("entities", ())),
        )


@dataclass(frozen=True, slots=True)
class Memory:
    """A thread's memory: recent turns (oldest first) and a summary of the turns before them."""

    recent: tuple[Turn, ...] = ()
    summary: str = ""
    total_turns: int = 0
    folded: tuple[Turn, ...] = field(default=(), compare=False)  # turns folded by the last `remember` (not persisted)

    def remember(self, turn: Turn, *, keep: int = RECENT_TURNS, summarize: Summarizer | None = None) -> Memory:
        """This memory with `turn` added; turns beyond `keep` are folded into the summary.

        Args:
            turn: the new turn.
            keep: how many turns stay verbatim.
            summarize: (old summary, turns to fold) -> new summary; the offline summary when None
                or when it fails.

        Returns:
            The new memory (this one is unchanged).
        """
        turns = (*self.recent, turn)
        fold, recent = turns[: max(0, len(turns) - keep)], turns[max(0, len(turns) - keep):]
        summary = self.summary
        if fold:
            summary = ""
            if summarize is not None:
                try:
                    summary = summarize(self.summary, fold).strip()
                except Exception:  # a summary is a convenience; the offline one always works
                    summary = ""
            if not summary:
                summary = offline_summary(self.summary, fold)
        return Memory(recent=recent, summary=bound_summary(summary), total_turns=self.total_turns + 1, folded=fold)

    def history(self) -> list[tuple[str, str]]:
        """(question, answer) pairs for the agent's condense prompt, the summary first when there is one."""
        pairs = [(t.standalone or t.question, t.answer) for t in self.recent]
        if self.summary:
            pairs.insert(0, ("(summary of the earlier conversation)", self.summary))
        return pairs

    def to_state(self) -> dict[str, Any]:
        return {"turns": [t.to_dict() for t in self.recent], "summary": self.summary, "total_turns": self.total_turns}

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> Memory:
        state = state or {}
        turns = tuple(Turn.from_dict(t) for t in state.get("turns") or () if isinstance(t, dict))
        return cls(recent=turns, summary=str(state.get("summary") or ""), total_turns=int(state.get("total_turns") or len(turns)))


def offline_summary(previous: str, turns: Sequence[Turn]) -> str:
    """A deterministic summary: one line per folded turn (what was asked, which files answered it)."""
    lines = [previous] if previous else []
    for t in turns:
        files = list(dict.fromkeys(s.split(":", 1)[0] for s in t.sources))
        where = f" — answered from {', '.join(files[:3])}" if files else " — not found in the KB"
        lines.append(f"- asked: {_one_line(t.standalone or t.question, 160)}{where}")
    return "\n".join(lines)


def bound_summary(summary: str, limit: int = SUMMARY_MAX_CHARS) -> str:
    """Keep the newest part of a summary within `limit` characters, cutting whole lines from the front."""
    if len(summary) <= limit:
        return summary
    lines = summary.split("\n")
    while lines and len("\n".join(lines)) > limit - 2:
        lines.pop(0)
    kept = "\n".join(lines) if lines else summary[-(limit - 2):]
    return "…\n" + kept


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
