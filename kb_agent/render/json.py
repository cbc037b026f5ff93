"""JSON from typed values: one serializer per value, and `dumps`, which escapes what a terminal
could interpret (C0/C1 controls, bidi controls) while keeping CJK and other text readable."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from kb_agent.render.safe import BIDI_CONTROLS

if TYPE_CHECKING:
    from kb_agent.agent.answer import Answer
    from kb_agent.agent.state import ExecutionRecord, IterationGrade, ToolCall, TraceEvent
    from kb_agent.checks.links import LinkReport
    from kb_agent.checks.run import CheckResult, CheckRun
    from kb_agent.types import Citation, Evidence, FileSkip, IndexReport, QuestionPoolReport

# the `kb ask --json` schema version (docs/ASK_JSON.md, docs/ask.schema.json)
SCHEMA_VERSION = 1

# json escapes C0 itself; DEL, C1, bidi controls and U+2028/9 pass through raw with ensure_ascii=False
_RAW_UNSAFE = re.compile("[\x7f-\x9f" + BIDI_CONTROLS + "\u2028\u2029]")


def dumps(value: Any, *, indent: int | None = 2) -> str:
    """`json.dumps` with readable non-ASCII text but every control and bidi character as a `\\u` escape.

    The escaped characters can only occur inside JSON strings, so rewriting them keeps the document
    valid and equal when parsed.
    """
    text = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    return _RAW_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def citation_dict(c: Citation) -> dict[str, Any]:
    return {"n": c.n, "path": c.path, "start_line": c.start_line, "end_line": c.end_line, "quote": c.quote}


def tool_call_dict(s: ToolCall) -> dict[str, Any]:
    return {"tool": s.tool, "input": s.input, "duration_ms": s.duration_ms, "hits": s.hits, "error": s.error}


def record_dict(r: ExecutionRecord) -> dict[str, Any]:
    return {
        "step_id": r.step_id, "iteration": r.iteration, "tool": r.tool, "tool_input": r.tool_input,
        "started_at": round(r.started_at, 3), "duration_ms": r.duration_ms, "status": r.status, "error": r.error,
        "output_summary": r.output_summary, "hits": r.hits, "sub_steps": [tool_call_dict(s) for s in r.sub_steps],
    }


def trace_dict(t: TraceEvent) -> dict[str, Any]:
    return {
        "node": t.node, "iteration": t.iteration, "started_at": round(t.started_at, 3), "duration_ms": t.duration_ms,
        "detail": t.detail, "model_calls": t.model_calls, "notes": list(t.notes), "steps": [record_dict(r) for r in t.steps],
    }


def iteration_dict(g: IterationGrade) -> dict[str, Any]:
    return {"iteration": g.iteration, "action": g.action, "mean_score": g.mean_score, "kept": g.kept, "dropped": g.dropped,
            "grader": g.grader, "missing": list(g.missing)}


def answer_dict(a: Answer) -> dict[str, Any]:
    """The `kb ask --json` document (schema in docs/ASK_JSON.md)."""
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


def answer_events(a: Answer) -> list[dict[str, Any]]:
    """The `--events` lines that carry a finished answer: message, references, metadata."""
    doc = answer_dict(a)
    meta = {k: v for k, v in doc.items() if k not in ("answer", "citations")}
    return [
        {"type": "message", "text": a.text, "answer_source": a.answer_source},
        {"type": "references", "citations": doc["citations"]},
        {"type": "metadata", **meta},
    ]


def evidence_dict(ev: Evidence, *, rank: int, explain: bool = False) -> dict[str, Any]:
    """One `kb search --json` result."""
    d: dict[str, Any] = {
        "rank": rank, "path": ev.path, "start_line": ev.start_line, "end_line": ev.end_line, "location": ev.location,
        "heading_path": list(ev.heading_path), "score": ev.score, "tool": ev.tool, "text": ev.text,
    }
    if ev.focus:
        d["focus"] = list(ev.focus)  # the best-matching lines inside the hit (retrieval/windows.py)
    if explain:
        d["explain"] = ev.explain
    return d


def skip_dict(s: FileSkip) -> dict[str, Any]:
    return {"path": s.path, "reason": s.reason}


def index_report_dict(report: IndexReport) -> dict[str, Any]:
    """The `kb index --json` document."""
    return {
        "root": report.root,
        "checked_only": report.checked_only,
        "stale": report.stale,
        "indexed": list(report.indexed),
        "updated": list(report.updated),
        "unchanged": report.unchanged,
        "removed": list(report.removed),
        "skipped": [skip_dict(s) for s in report.skipped],
        "warnings": [skip_dict(s) for s in report.warnings],
        "notes": list(report.notes),
        "chunks_total": report.chunks_total,
        "chunks_embedded": report.chunks_embedded,
        "chunks_pending": report.chunks_pending,
        "duration_s": round(report.duration_s, 3),
        "questions": question_report_dict(report.questions) if report.questions is not None else None,
    }


def question_report_dict(q: QuestionPoolReport) -> dict[str, Any]:
    """The question phase of `kb index --questions` in `--json`."""
    return {
        "model": q.model, "chunks_asked": q.chunks_asked, "chunks_written": q.chunks_written, "chunks_fallback": q.chunks_fallback,
        "chunks_reused": q.chunks_reused, "chunks_waiting": q.chunks_waiting, "questions": q.questions,
        "questions_per_chunk": round(q.questions_per_chunk, 2), "model_calls": q.model_calls, "seconds": round(q.seconds, 3), "error": q.error,
    }


def check_result_dict(r: CheckResult, *, timings: bool = False) -> dict[str, Any]:
    c = r.check
    d: dict[str, Any] = {
        "id": c.id,
        "question": c.question,
        "line": c.line,
        "passed": r.passed,
        "failures": [{"expectation": f.expectation, "message": f.message, "line": f.line} for f in r.failures],
        "answer_source": r.answer_source,
        "query_type": r.query_type,
        "confidence": r.confidence,
        "citations": [citation_dict(x) for x in r.citations],
        "answer": r.answer_text,
    }
    if timings:
        d["duration_ms"] = r.duration_ms
    return d


def check_run_dict(run: CheckRun, *, timings: bool = False) -> dict[str, Any]:
    """The `kb check --format json` document."""
    d: dict[str, Any] = {
        "spec": run.spec.path,
        "llm_provider": run.llm_provider,
        "deterministic": run.deterministic,
        "ok": run.ok,
        "summary": {"total": len(run.results), "passed": len(run.results) - len(run.failed), "failed": len(run.failed)},
        "checks": [check_result_dict(r, timings=timings) for r in run.results],
    }
    if timings:
        d["duration_s"] = round(run.duration_s, 3)
    return d


def link_report_dict(report: LinkReport, *, timings: bool = False) -> dict[str, Any]:
    """The `kb links --format json` document."""
    d: dict[str, Any] = {
        "ok": report.ok,
        "files": len(report.files),
        "links": report.links_checked,
        "broken": [
            {"path": p.path, "line": p.line, "kind": p.kind, "target": p.target, "anchor": p.anchor, "reason": p.reason, "message": p.message}
            for p in report.problems
        ],
        "skipped": [skip_dict(s) for s in report.skipped],
    }
    if timings:
        d["duration_s"] = round(report.duration_s, 3)
    return d
