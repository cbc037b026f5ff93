"""Routers of the retrieval subgraph: pure functions of the state returning the next edge's name."""

from __future__ import annotations

from typing import Literal

from kb_agent.agent.state import RetrievalState


def route_after_plan(state: RetrievalState) -> Literal["tool_exec", "done"]:
    """Run the plan, or leave the loop when there was nothing new left to try."""
    return "tool_exec" if state.get("plan") else "done"


def decide_after_grade(state: RetrievalState) -> Literal["generate", "refine", "re_retrieve"]:
    """GENERATE leaves the loop (also when the grader set a stop reason, e.g. the iteration cap);
    REFINE goes back to plan; RE-RETRIEVE goes back to analyze_and_route."""
    if state.get("stop_reason"):
        return "generate"
    action = state.get("grader_action", "generate")
    if action == "refine":
        return "refine"
    if action == "re_retrieve":
        return "re_retrieve"
    return "generate"
