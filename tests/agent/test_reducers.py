"""The state reducers are pure and do what the graph relies on."""

from __future__ import annotations

from kb_agent.agent.state import MAX_ITEM_CHARS, add_int, add_timings, append, cap_item, merge_evidence
from kb_agent.types import Evidence


def ev(path: str, start: int, end: int, score: float, text: str | None = None) -> Evidence:
    return Evidence(path, start, end, text if text is not None else "\n".join(f"line {n}" for n in range(start, end + 1)), score, "t")


def test_append_treats_none_as_empty_and_does_not_mutate() -> None:
    left = [1]
    assert append(left, [2, 3]) == [1, 2, 3]
    assert left == [1]
    assert append(None, None) == []


def test_add_timings_sums_per_node() -> None:
    assert add_timings({"plan": 1.0}, {"plan": 2.5, "tool_exec": 3.0}) == {"plan": 3.5, "tool_exec": 3.0}
    assert add_timings(None, {"a": 1.0}) == {"a": 1.0}


def test_add_int() -> None:
    assert add_int(None, 2) == 2
    assert add_int(3, None) == 3


def test_merge_evidence_joins_overlapping_ranges_keeping_best_score() -> None:
    merged = merge_evidence([ev("a.md", 1, 5, 0.4)], [ev("a.md", 4, 8, 0.9)])
    assert len(merged) == 1
    assert (merged[0].start_line, merged[0].end_line, merged[0].score) == (1, 8, 0.9)
    assert merged[0].text.split("\n") == [f"line {n}" for n in range(1, 9)]


def test_merge_evidence_keeps_disjoint_and_other_files_sorted_best_first() -> None:
    merged = merge_evidence([ev("a.md", 1, 2, 0.1)], [ev("a.md", 10, 12, 0.5), ev("b.md", 1, 2, 0.3)])
    assert [(e.path, e.start_line, e.score) for e in merged] == [("a.md", 10, 0.5), ("b.md", 1, 0.3), ("a.md", 1, 0.1)]


def test_merge_evidence_same_range_counts_once() -> None:
    merged = merge_evidence([ev("a.md", 3, 4, 0.2)], [ev("a.md", 3, 4, 0.7), ev("a.md", 3, 4, 0.5)])
    assert len(merged) == 1 and merged[0].score == 0.7


def test_merge_evidence_does_not_join_beyond_item_cap() -> None:
    big = "x" * 1500
    a = Evidence("a.md", 1, 1, big, 0.9, "t")
    b = Evidence("a.md", 1, 2, big + "\n" + big, 0.3, "t")
    merged = merge_evidence([a], [b])
    assert len(merged) == 1 and merged[0].score == 0.9
    assert all(len(e.text) <= MAX_ITEM_CHARS for e in merged)


def test_cap_item_cuts_at_line_boundary_and_keeps_range_exact() -> None:
    text = "\n".join("y" * 300 for _ in range(20))
    capped = cap_item(Evidence("a.md", 10, 29, text, 1.0, "t"))
    assert len(capped.text) <= MAX_ITEM_CHARS
    n_lines = len(capped.text.split("\n"))
    assert capped.end_line == 10 + n_lines - 1
    assert capped.text == "\n".join(text.split("\n")[:n_lines])


def test_a_graded_passage_keeps_its_grade_when_a_later_search_finds_it_again() -> None:
    """A refine round that searches one keyword can find the kept lines again, lower in its own list; the
    merged item must not lose the grade it earned (it once dropped 0.72 → 0.28 and kb refused a question
    whose answer it held)."""
    from pathlib import Path

    from kb_agent.agent.graph import _NoTools
    from kb_agent.agent.nodes import AgentDeps, NodeRun, grade_evidence
    from kb_agent.agent.state import GRADED
    from kb_agent.llm.offline import OfflineModel
    from kb_agent.llm.retry import MeteredModel

    q = "What happens when the vector index is out of range?"
    right = Evidence("v.md", 98, 100, "Accessing an index out of range makes the vector method panic.", 0.91, "vector", explain={"rank": 0})
    deps = AgentDeps(tools=_NoTools(), model=MeteredModel(OfflineModel()), root=Path("."))
    first = grade_evidence({"question": q, "evidence": [right], "iteration": 1, "max_iterations": 3}, deps, NodeRun())  # type: ignore[typeddict-item]
    graded = first["evidence"].value[0]
    assert graded.explain[GRADED] == first["evidence_scores"][0] >= deps.generate_at - 0.2
    # the refine round's hybrid search ranks the same lines fifth: its hit wins the merge (higher raw score)
    again = Evidence("v.md", 98, 100, right.text, 1.46, "hybrid", explain={"rank": 4, "norm_score": 0.7})
    other = [Evidence("w.md", i, i, "unrelated words", 2.0 - i / 10, "hybrid", explain={"rank": i}) for i in range(4)]
    merged = merge_evidence([graded], [*other, again])
    assert next(e for e in merged if e.path == "v.md").tool == "hybrid"
    second = grade_evidence({"question": q, "evidence": merged, "iteration": 2, "max_iterations": 3}, deps, NodeRun())  # type: ignore[typeddict-item]
    kept = dict(zip([e.path for e in second["evidence"].value], second["evidence_scores"]))
    assert kept["v.md"] == first["evidence_scores"][0], second
