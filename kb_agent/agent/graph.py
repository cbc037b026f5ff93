"""The LangGraph wiring: the retrieval subgraph (analyze_and_route → plan → tool_exec → grade_evidence,
looping by the grader's verdict) as a node of the conversation graph (prepare → retrieve → synthesize)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypedDict, cast

from kb_agent.agent import nodes
from kb_agent.agent.nodes import AgentDeps, NodeRun
from kb_agent.agent.routing import decide_after_grade, route_after_plan
from kb_agent.agent.state import (
    ConversationState,
    ExecutionRecord,
    IterationGrade,
    RetrievalState,
    TraceEvent,
    add_timings,
)
from kb_agent.types import Evidence

NodeFn = Callable[[Any, AgentDeps, NodeRun], dict[str, Any]]


class RetrievalOutput(TypedDict, total=False):
    """What the retrieval subgraph hands back to the conversation graph (each value replaces the parent's)."""

    query_type: str
    sub_questions: list[str]
    grep_keywords: list[str]
    records: list[ExecutionRecord]
    evidence: list[Evidence]
    evidence_scores: list[float]
    iterations: list[IterationGrade]
    iteration: int
    stop_reason: str
    trace: list[TraceEvent]
    timings: dict[str, float]
    model_calls: int


def recursion_limit(max_iterations: int) -> int:
    """A LangGraph step budget comfortably above the hard iteration cap, so the cap (not LangGraph) ends loops."""
    # per iteration at most analyze_and_route + plan + tool_exec + grade_evidence; plus the outer nodes
    return 4 * (max_iterations + 1) + 10


def _instrument(name: str, fn: NodeFn, deps: AgentDeps, *, in_subgraph: bool) -> Callable[[Any], dict[str, Any]]:
    """Wrap a node: progress events, duration, model-call count and a TraceEvent appended to the state."""

    def node(state: Any) -> dict[str, Any]:
        iteration = int(state.get("iteration", 0) or 0)
        deps.emit({"type": "progress", "node": name, "status": "start", "iteration": iteration})
        run = NodeRun()
        calls_before = deps.model.calls
        wall, t0 = time.time(), time.perf_counter()
        update = fn(state, deps, run)
        ms = round((time.perf_counter() - t0) * 1000, 1)
        calls = deps.model.calls - calls_before
        event = TraceEvent(
            node=name,
            iteration=int(update.get("iteration", iteration) or 0),
            started_at=wall,
            duration_ms=ms,
            detail=deps.redact(run.detail),
            steps=tuple(update.get("records", ())) if name == "tool_exec" else (),
            notes=tuple(deps.redact(n) for n in run.notes),
            model_calls=calls,
        )
        if in_subgraph:  # the subgraph's reducers append / sum
            update.update({"trace": [event], "timings": {name: ms}, "model_calls": calls})
        else:  # the outer graph's fields are plain: extend them here
            update.update({
                "trace": [*state.get("trace", []), event],
                "timings": add_timings(state.get("timings"), {name: ms}),
                "model_calls": int(state.get("model_calls", 0) or 0) + calls,
            })
        deps.emit({"type": "progress", "node": name, "status": "done", "duration_ms": ms, "detail": event.detail, "iteration": event.iteration})
        return update

    node.__name__ = name
    return node


def build_retrieval_graph(deps: AgentDeps) -> Any:
    """Compile the retrieval subgraph.

    GENERATE (or a stop reason) → END; REFINE → plan; RE-RETRIEVE → analyze_and_route; an empty
    plan (nothing new to try) → END.
    """
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(RetrievalState, output_schema=RetrievalOutput)
    for name in ("analyze_and_route", "plan", "tool_exec", "grade_evidence"):
        builder.add_node(name, cast(Any, _instrument(name, getattr(nodes, name), deps, in_subgraph=True)))
    builder.add_edge(START, "analyze_and_route")
    builder.add_edge("analyze_and_route", "plan")
    builder.add_conditional_edges("plan", route_after_plan, {"tool_exec": "tool_exec", "done": END})
    builder.add_edge("tool_exec", "grade_evidence")
    builder.add_conditional_edges(
        "grade_evidence", decide_after_grade, {"generate": END, "refine": "plan", "re_retrieve": "analyze_and_route"}
    )
    return builder.compile(name="retrieve")


def build_graph(deps: AgentDeps) -> Any:
    """Compile the conversation graph: prepare → retrieve (the subgraph) → synthesize."""
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(ConversationState)
    builder.add_node("prepare", cast(Any, _instrument("prepare", nodes.prepare, deps, in_subgraph=False)))
    builder.add_node("retrieve", build_retrieval_graph(deps))
    builder.add_node("synthesize", cast(Any, _instrument("synthesize", nodes.synthesize, deps, in_subgraph=False)))
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "retrieve")
    builder.add_edge("retrieve", "synthesize")
    builder.add_edge("synthesize", END)
    return builder.compile(name="kb_ask")


def mermaid() -> str:
    """The mermaid diagram of the compiled graph, subgraph expanded (what `kb graph` prints)."""
    from pathlib import Path

    from kb_agent.llm.offline import OfflineModel
    from kb_agent.llm.retry import MeteredModel

    deps = AgentDeps(tools=_NoTools(), model=MeteredModel(OfflineModel()), root=Path("."))
    return str(build_graph(deps).get_graph(xray=True).draw_mermaid())


class _NoTools:
    """Stand-in tools for drawing the graph (never called)."""

    def search(self, tool: Any, query: str, *, k: int = 10, filters: Any = None) -> list[Evidence]:
        raise RuntimeError("drawing only")

    def read_file(self, path: str, start: int = 1, end: int | None = None) -> Evidence:
        raise RuntimeError("drawing only")
