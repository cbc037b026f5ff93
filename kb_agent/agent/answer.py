"""The result of one question (`Answer`) and its audit-log line; its JSON form is `render.json.answer_dict`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb_agent.agent.state import AnswerSource, IterationGrade, TraceEvent
from kb_agent.types import Citation


@dataclass(frozen=True, slots=True)
class Answer:
    """What `Engine.answer_query` returns."""

    question: str  # as asked, after cleaning and follow-up condensation
    text: str  # markdown; ends with the `---` footer of `[n] path:Lx-Ly` when there are citations
    citations: tuple[Citation, ...]
    query_type: str
    iterations: tuple[IterationGrade, ...]
    confidence: float
    answer_source: AnswerSource
    fallback_reason: str | None
    stop_reason: str
    timings: dict[str, float]  # ms per node, summed over iterations; "total" for the whole question
    trace: tuple[TraceEvent, ...]
    model_calls: int
    model: str  # provider:model label ("none" offline)

    @property
    def found(self) -> bool:
        """Answered from the KB with at least one verified citation (exit code 0)."""
        return self.answer_source == "kb" and bool(self.citations)


def audit_dict(a: Answer, *, when: float) -> dict[str, Any]:
    """One `.kb/audit.jsonl` line: route, actions, timings, stop reason (never keys or document text)."""
    tools = [r.tool for t in a.trace for r in t.steps]
    return {
        "ts": round(when, 3),
        "question": a.question[:500],
        "query_type": a.query_type,
        "route": list(dict.fromkeys(tools)),
        "steps": [{"tool": r.tool, "status": r.status, "duration_ms": r.duration_ms} for t in a.trace for r in t.steps],
        "actions": [g.action for g in a.iterations],
        "stop_reason": a.stop_reason,
        "answer_source": a.answer_source,
        "fallback_reason": a.fallback_reason,
        "citations": [c.location for c in a.citations],
        "confidence": a.confidence,
        "model": a.model,
        "model_calls": a.model_calls,
        "timings": a.timings,
        "notes": [n for t in a.trace for n in t.notes],
    }
