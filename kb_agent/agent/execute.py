"""tool_exec: run ready plan steps concurrently within their budgets, one ExecutionRecord per step;
failures and timeouts are recorded, never fatal."""

from __future__ import annotations

import concurrent.futures as cf
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from kb_agent.agent.state import ExecutionRecord, PlanStep, ToolCall, cap_item, merge_evidence
from kb_agent.errors import IndexCorrupt, IndexWriteFailed
from kb_agent.types import Evidence, SearchFilters

# read_file steps widen each hit by this many lines on both sides (enough for a paragraph or list)
EXPAND_LINES = 6
# a read_file step expands this many best hits of each step it depends on
EXPAND_TOP = 2
MAX_WORKERS = 4

EventSink = Callable[[dict[str, Any]], None]


class SearchTools(Protocol):
    """What tool_exec needs from a retriever (the real `Retriever` or a test fake)."""

    def search(self, tool: Any, query: str, *, k: int = 10, filters: SearchFilters = ...) -> list[Evidence]: ...

    def read_file(self, path: str, start: int = 1, end: int | None = None) -> Evidence: ...


@dataclass(frozen=True, slots=True)
class StepResult:
    """A step's record and the evidence it produced."""

    record: ExecutionRecord
    evidence: list[Evidence]


def execute_plan(
    plan: Sequence[PlanStep],
    tools: SearchTools,
    *,
    filters: SearchFilters,
    iteration: int,
    on_event: EventSink | None = None,
) -> list[StepResult]:
    """Run a plan: waves of ready steps in parallel; dependents run after their dependencies.

    Args:
        plan: the steps (dependencies must refer to earlier steps of the same plan).
        tools: the retriever.
        filters: tag / path filters applied to every search.
        iteration: the grader iteration, copied into the records.
        on_event: receives progress events ({"type": "progress", "node": "tool_exec", "step": …}).

    Returns:
        One StepResult per step, in plan order (skipped ones included).
    """
    emit = on_event or (lambda _e: None)
    results: dict[str, StepResult] = {}
    pending = list(plan)
    pool = cf.ThreadPoolExecutor(max_workers=MAX_WORKERS, thread_name_prefix="kb-step")
    try:
        while pending:
            ready = [s for s in pending if all(d in results for d in s.depends_on)]
            if not ready:  # a dependency that is not in the plan: skip the rest rather than hang
                for step in pending:
                    results[step.step_id] = _skipped(step, iteration, "dependency not in the plan")
                break
            pending = [s for s in pending if s not in ready]
            _warm(tools, ready)
            futures: dict[cf.Future[StepResult], tuple[PlanStep, float, float]] = {}
            for step in ready:
                failed = [d for d in step.depends_on if results[d].record.status != "success"]
                if step.depends_on and len(failed) == len(step.depends_on):
                    results[step.step_id] = _skipped(step, iteration, f"dependencies failed: {', '.join(failed)}")
                    continue
                emit({"type": "progress", "node": "tool_exec", "step": step.step_id, "tool": step.tool, "status": "start", "input": step.tool_input})
                inputs = [e for d in step.depends_on for e in results[d].evidence[:EXPAND_TOP]]
                fut = pool.submit(_run_step, step, tools, filters, iteration, inputs)
                futures[fut] = (step, time.time(), time.perf_counter())
            for fut, (step, wall, t0) in futures.items():
                remaining = step.budget.timeout_s - (time.perf_counter() - t0)
                try:
                    result = fut.result(timeout=max(0.0, remaining))
                except cf.TimeoutError:
                    fut.cancel()
                    record = ExecutionRecord(
                        step_id=step.step_id, iteration=iteration, tool=step.tool, tool_input=step.tool_input,
                        started_at=wall, duration_ms=round((time.perf_counter() - t0) * 1000, 1), status="timeout",
                        error=f"no result within {step.budget.timeout_s:g}s",
                    )
                    result = StepResult(record, [])
                results[step.step_id] = result
                emit({"type": "progress", "node": "tool_exec", "step": step.step_id, "tool": step.tool,
                      "status": result.record.status, "hits": result.record.hits, "duration_ms": result.record.duration_ms})
    finally:
        # a timed-out call cannot be killed; its thread finishes in the background and is ignored
        pool.shutdown(wait=False, cancel_futures=True)
    return [results[s.step_id] for s in plan if s.step_id in results]


def _warm(tools: SearchTools, steps: Sequence[PlanStep]) -> None:
    """Open the vector store and embedder once, before threads race to open them lazily."""
    if not any(s.tool in ("vector", "hybrid") for s in steps):
        return
    index = getattr(tools, "index", None)
    if index is None or not getattr(index, "built", False):
        return
    try:
        index.store  # noqa: B018 - property access opens it
        index.embedder  # noqa: B018
    except Exception:  # the step itself will fail and record why
        return


def _skipped(step: PlanStep, iteration: int, why: str) -> StepResult:
    return StepResult(
        ExecutionRecord(step.step_id, iteration, step.tool, step.tool_input, time.time(), 0.0, "skipped", error=why),
        [],
    )


def _run_step(step: PlanStep, tools: SearchTools, filters: SearchFilters, iteration: int, inputs: list[Evidence]) -> StepResult:
    started = time.time()
    t0 = time.perf_counter()
    calls: list[ToolCall] = []
    evidence: list[Evidence] = []
    error: str | None = None
    try:
        if step.tool == "read_file":
            evidence = _expand(tools, inputs, calls)
        else:
            c0 = time.perf_counter()
            hits = tools.search(step.tool, step.tool_input, k=step.budget.top_k, filters=filters)
            calls.append(ToolCall(step.tool, step.tool_input, round((time.perf_counter() - c0) * 1000, 1), len(hits)))
            evidence = annotate(hits, step.step_id)
    except (IndexCorrupt, IndexWriteFailed):  # a broken index is no tool failure: one clear error, not a weaker answer
        raise
    except Exception as e:  # any tool failure is recorded on the step; the run goes on
        error = f"{type(e).__name__}: {getattr(e, 'message', None) or e}"
    evidence = merge_evidence([], [cap_item(e) for e in evidence])
    record = ExecutionRecord(
        step_id=step.step_id, iteration=iteration, tool=step.tool, tool_input=step.tool_input, started_at=started,
        duration_ms=round((time.perf_counter() - t0) * 1000, 1), status="failed" if error else "success", error=error,
        output_summary=summarize(evidence), hits=len(evidence), sub_steps=tuple(calls),
    )
    return StepResult(record, evidence)


def annotate(hits: Sequence[Evidence], step_id: str) -> list[Evidence]:
    """Record each hit's rank and score relative to the step's best in `explain` (the grader uses them)."""
    top = max((h.score for h in hits), default=0.0)
    out = []
    for rank, h in enumerate(hits):
        norm = h.score / top if top > 0 else 0.0
        out.append(replace(h, explain={**h.explain, "step": step_id, "rank": rank, "norm_score": round(norm, 4)}))
    return out


def _expand(tools: SearchTools, inputs: Sequence[Evidence], calls: list[ToolCall]) -> list[Evidence]:
    out: list[Evidence] = []
    for hit in inputs:
        start, end = max(1, hit.start_line - EXPAND_LINES), hit.end_line + EXPAND_LINES
        c0 = time.perf_counter()
        try:
            ev = tools.read_file(hit.path, start, end)
        except Exception as e:  # a vanished file or an odd range: note it, keep the others
            calls.append(ToolCall("read_file", hit.location, round((time.perf_counter() - c0) * 1000, 1), 0, f"{type(e).__name__}: {e}"))
            continue
        calls.append(ToolCall("read_file", ev.location, round((time.perf_counter() - c0) * 1000, 1), 1))
        out.append(replace(ev, score=hit.score, tool="read_file", heading_path=hit.heading_path, questions=hit.questions,
                           explain={**hit.explain, "expanded_from": hit.location}))
    return out


def summarize(evidence: Sequence[Evidence], show: int = 3) -> str:
    """`3 hits: a.md:L1-L9, b.md:L4, …` for records and traces."""
    if not evidence:
        return "no hits"
    locs = ", ".join(e.location for e in evidence[:show])
    more = ", …" if len(evidence) > show else ""
    return f"{len(evidence)} hit{'s' if len(evidence) != 1 else ''}: {locs}{more}"
