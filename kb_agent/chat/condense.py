"""Chat's side of follow-up condensation: its thread memory seen as the agent condenser's priors
(kb_agent/agent/condense.py holds the one condenser), and the Turn a condensed question becomes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb_agent.agent.condense import Condensed, Prior, condense_offline as _condense_offline, entities_of, topic_of
from kb_agent.agent.condense import condense as _condense
from kb_agent.chat.memory import Memory, Turn

if TYPE_CHECKING:
    from kb_agent.llm.base import ChatModel
    from kb_agent.llm.retry import RetryPolicy

__all__ = ["Condensed", "condense", "condense_offline", "entities_of", "is_follow_up", "priors_of", "topic_of", "turn_from"]


def priors_of(memory: Memory) -> list[Prior]:
    """The thread's recent turns as the condenser's priors."""
    return [Prior(t.question, t.standalone, t.topic, t.entities) for t in memory.recent]


def is_follow_up(question: str, memory: Memory) -> bool:
    """Whether a question leans on the thread's earlier turns."""
    from kb_agent.agent.condense import is_follow_up as _is_follow_up

    return _is_follow_up(question, priors_of(memory))


def condense_offline(question: str, memory: Memory) -> Condensed:
    """The rules-only rewrite of `question` against the thread's memory."""
    return _condense_offline(question, priors_of(memory))


def condense(question: str, memory: Memory, *, model: ChatModel | None = None, policy: RetryPolicy | None = None) -> Condensed:
    """Make `question` standalone from the thread's memory (the model's prompt also sees the summary)."""
    return _condense(question, priors_of(memory), history=memory.history(), model=model, policy=policy)


def turn_from(condensed: Condensed, answer_text: str, sources: tuple[str, ...]) -> Turn:
    """The Turn to remember for a condensed question and its answer."""
    from kb_agent.chat.memory import ANSWER_KEEP_CHARS

    return Turn(question=condensed.original, standalone=condensed.question, answer=answer_text[:ANSWER_KEEP_CHARS],
                sources=sources, topic=condensed.topic, entities=condensed.entities)
