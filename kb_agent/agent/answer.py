"""The result of one question (`Answer`) and its JSON form — the `kb ask --json` schema (docs/ASK_JSON.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb_agent.agent.state import AnswerSource, ExecutionRecord, IterationGrade, TraceEvent
from kb_agent.types import Citation

SCHEMA_VERSION = 1


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


def citation_dict(c: Citation) -> dict[str, Any]:
    return {"n": c.n, "path": c.path, "start_line": c.start_line, "end_line": c.end_line, "quote": c.quote}


def record_dict(r: ExecutionRecord) -> dict[str, Any]:
    return {
        "step_id": r.step_id, "iteration": r.iteration, "tool": r.tool, "tool_input": r.tool_input,
        "started_at": round(r.started_at, 3), "duration_ms": r.duration_ms, "status": r.status, "error": r.error,
        "output_summary": r.output_summary, "hits": r.hits,
        "sub_steps": [{"tool": s.tool, "input": s.input, "duration_ms": s.duration_ms, "hits": s.hits, "error": s.error} for s in r.sub_steps],
    }


def trace_dict(t: TraceEvent) -> dict[str, Any]:
    return {
        "node": t.node, "iteration": t.iteration, "started_at": round(t.started_at, 3), "duration_ms": t.duration_ms,
        "detail": t.detail, "model_calls": t.model_calls, "notes": list(t.notes), "steps": [record_dict(r) for r in t.steps],
    }


def iteration_dict(g: IterationGrade) -> dict[str, Any]:
    return {"iteration": g.iteration, "action": g.action, "mean_score": g.mean_score, "kept": g.kept, "dropped": g.dropped,
            "grader": g.grader, "missing": list(g.missing)}


def answer_to_dict(a: Answer) -> dict[str, Any]:
    """The `--json` document (schema in docs/ASK_JSON.md)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "question": a.question,
        "answer": a.text,
        "citations": [citation_dict(c) for c in a.citations],
        "query_type": a.query_type,
        "iterations": [iteration_dict(g) for g in a.iterations],
        "confidence": a.confidence,
        "answer_source": a.answer_source,
        "fallback_reason": a.fallback_reason,
        "stop_reason": a.stop_reason,
        "model": a.model,
        "model_calls": a.model_calls,
        "timings": a.timings,
        "trace": [trace_dict(t) for t in a.trace],
    }


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
