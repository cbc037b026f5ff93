"""The plan does not depend on the query type being right: exact-looking terms always get a grep step,
every plan searches by meaning (a vector or hybrid step), and no step searches a lone leftover word."""

from __future__ import annotations

from kb_agent.agent.analyzer import ROUTING_TABLE, analyze_question
from kb_agent.agent.plan import PlanRequest, make_plan


def plan_for(question: str, *, query_type: str | None = None, missing: tuple[str, ...] = (), tried: frozenset[str] = frozenset(),
             safety_net: bool = True) -> list[tuple[str, str]]:
    a = analyze_question(question)
    routing = ROUTING_TABLE[query_type or a.query_type]  # type: ignore[index]
    req = PlanRequest(question, tuple(routing), a.exact_terms, a.grep_keywords, (), a.fast_path, 1, tried, 10, missing=missing,
                      safety_net=safety_net)
    return [(s.tool, s.tool_input) for s in make_plan(req)]


def test_exact_terms_get_grep_even_when_routed_as_conceptual() -> None:
    steps = plan_for("How do I set `--reload` for uvicorn?", query_type="conceptual")
    assert ("grep", "--reload") in steps
    assert any(t in ("hybrid", "vector") for t, _ in steps)


def test_every_route_searches_by_meaning() -> None:
    for query_type in ROUTING_TABLE:
        steps = plan_for("which page explains dependency injection?", query_type=query_type)
        assert any(t in ("hybrid", "vector") for t, _ in steps), (query_type, steps)
        if not any(t == "vector" for t, _ in steps):  # lexical routes get the hybrid safety net
            assert any(t == "hybrid" for t, _ in steps), (query_type, steps)


def test_a_pinned_tool_gets_no_safety_net() -> None:
    steps = plan_for("what is the default port?", query_type="exact", safety_net=False)
    assert all(t != "hybrid" for t, _ in steps)


def test_refine_never_searches_a_lone_leftover_word() -> None:
    steps = plan_for("can I apply the stash later?", missing=("later",))
    assert steps and all(len(text.split()) > 1 for _t, text in steps), steps


def test_lone_keywords_are_not_fallback_inputs() -> None:
    q = "how do I apply my stash later"
    a = analyze_question(q)
    tried: set[str] = set()
    seen: list[str] = []
    for iteration in range(1, 8):
        req = PlanRequest(q, ("grep", "vector", "hybrid"), a.exact_terms, a.grep_keywords, (), True, iteration, frozenset(tried), 10)
        steps = make_plan(req)
        if not steps:
            break
        tried.update(s.signature for s in steps)
        seen += [s.tool_input for s in steps if s.tool != "read_file"]
    assert seen and "later" not in seen and "apply" not in seen, seen
