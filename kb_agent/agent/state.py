"""The agent's typed state: step, record and grade values, the graph state dicts, and their pure reducers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal, TypedDict

from kb_agent.names import QueryType as QueryType
from kb_agent.names import ToolName
from kb_agent.types import Evidence, SearchFilters

StepTool = Literal[ToolName, "read_file"]
StepStatus = Literal["success", "failed", "timeout", "skipped"]
GraderAction = Literal["generate", "refine", "re_retrieve"]
StopReason = Literal["generate", "max_iterations", "exhausted", "no_evidence"]
AnswerSource = Literal["kb", "llm_fallback", "none"]

# passages longer than this are cut (DESIGN: items ≤ 2000 chars)
MAX_ITEM_CHARS = 2000
# the `explain` key where grade_evidence records a kept item's grade: a passage graded in one round keeps
# at least that grade in the next (a later search finding the same lines again, at a worse rank of its
# own tool, is no evidence against them)
GRADED = "graded"


@dataclass(frozen=True, slots=True)
class Budget:
    """What one plan step may spend."""

    timeout_s: float = 10.0
    top_k: int = 10


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One retrieval action. `read_file` steps expand the best hits of the steps they depend on."""

    step_id: str
    objective: str
    tool: StepTool
    tool_input: str
    depends_on: tuple[str, ...] = ()
    budget: Budget = field(default_factory=Budget)

    @property
    def signature(self) -> str:
        """Identity of the action itself (tool + normalised input), used to never repeat a step."""
        return f"{self.tool}:{' '.join(self.tool_input.lower().split())}"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A sub-step of a plan step: one call of a retrieval tool."""

    tool: str
    input: str
    duration_ms: float
    hits: int
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ExecutionRecord:
    """What happened when a plan step ran (one per step per iteration)."""

    step_id: str
    iteration: int
    tool: str
    tool_input: str
    started_at: float  # unix time
    duration_ms: float
    status: StepStatus
    error: str | None = None
    output_summary: str = ""
    hits: int = 0
    sub_steps: tuple[ToolCall, ...] = ()


@dataclass(frozen=True, slots=True)
class IterationGrade:
    """The grader's verdict for one iteration."""

    iteration: int
    action: GraderAction
    mean_score: float
    kept: int
    dropped: int
    grader: Literal["model", "deterministic"]
    missing: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One timed span: a graph node, a plan step inside it, or a note (fallbacks, retries)."""

    node: str
    iteration: int
    started_at: float
    duration_ms: float
    detail: str = ""
    steps: tuple[ExecutionRecord, ...] = ()
    notes: tuple[str, ...] = ()
    model_calls: int = 0


# ---- reducers (pure; LangGraph calls them with (current, update)) ----


def append(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """List concatenation that treats None as empty."""
    return [*(left or []), *(right or [])]


def add_timings(left: dict[str, float] | None, right: dict[str, float] | None) -> dict[str, float]:
    """Sum per-node durations (a node that runs in several iterations accumulates)."""
    out = dict(left or {})
    for node, ms in (right or {}).items():
        out[node] = round(out.get(node, 0.0) + ms, 3)
    return out


def add_int(left: int | None, right: int | None) -> int:
    return (left or 0) + (right or 0)


def merge_evidence(left: list[Evidence] | None, right: list[Evidence] | None) -> list[Evidence]:
    """Merge evidence lists: overlapping line ranges of one file count once, the best score kept.

    Overlapping items are joined into one span only when the joined text is still ≤ MAX_ITEM_CHARS;
    otherwise the better-scored item wins. Result is sorted best first (stable for ties).
    """
    merged: list[Evidence] = []
    for item in [*(left or []), *(right or [])]:
        item = cap_item(item)
        for i, kept in enumerate(merged):
            if kept.overlaps(item):
                merged[i] = _combine(kept, item)
                break
        else:
            merged.append(item)
    return sorted(merged, key=lambda e: -e.score)


def _combine(a: Evidence, b: Evidence) -> Evidence:
    best, other = (a, b) if a.score >= b.score else (b, a)
    graded = max(float(a.explain.get(GRADED, 0.0)), float(b.explain.get(GRADED, 0.0)))
    if graded:  # the joined item holds the graded lines: their grade goes with it
        best = replace(best, explain={**best.explain, GRADED: graded})
    if best.start_line <= other.start_line and other.end_line <= best.end_line:
        return best
    lines: dict[int, str] = {}
    for ev in (other, best):
        for offset, line in enumerate(ev.text.split("\n")):
            lines[ev.start_line + offset] = line
    start, end = min(lines), max(lines)
    if any(n not in lines for n in range(start, end + 1)):
        return best
    text = "\n".join(lines[n] for n in range(start, end + 1))
    if len(text) > MAX_ITEM_CHARS:
        return best
    questions = tuple(dict.fromkeys((*best.questions, *other.questions)))
    return Evidence(
        path=best.path, start_line=start, end_line=end, text=text, score=best.score, tool=best.tool,
        heading_path=best.heading_path or other.heading_path, questions=questions, explain=best.explain,
    )


def cap_item(item: Evidence) -> Evidence:
    """Cut an item to ≤ MAX_ITEM_CHARS at a line boundary, keeping its line range exact."""
    if len(item.text) <= MAX_ITEM_CHARS:
        return item
    kept: list[str] = []
    size = 0
    for line in item.text.split("\n"):
        if kept and size + len(line) + 1 > MAX_ITEM_CHARS:
            break
        kept.append(line[:MAX_ITEM_CHARS])
        size += len(line) + 1
    return Evidence(
        path=item.path, start_line=item.start_line, end_line=item.start_line + len(kept) - 1,
        text="\n".join(kept), score=item.score, tool=item.tool, heading_path=item.heading_path,
        questions=item.questions, explain=item.explain,
    )


# ---- graph state ----


class RetrievalState(TypedDict, total=False):
    """State of the retrieval subgraph (analyze_and_route → plan → tool_exec → grade_evidence)."""

    question: str
    filters: SearchFilters
    tool_override: str | None
    max_iterations: int
    query_type: QueryType
    sub_questions: list[str]
    suggested_tools: list[str]
    grep_keywords: list[str]
    exact_terms: list[str]
    fast_path: bool
    routing: list[str]  # tools in the order this attempt will try them
    missing_hint: str
    plan: list[PlanStep]
    tried: Annotated[list[str], append]  # step signatures already executed
    records: Annotated[list[ExecutionRecord], append]
    evidence: Annotated[list[Evidence], merge_evidence]
    evidence_scores: list[float]
    iterations: Annotated[list[IterationGrade], append]
    grader_action: GraderAction
    iteration: int
    attempt: int  # how many times analyze_and_route has run
    stop_reason: StopReason
    trace: Annotated[list[TraceEvent], append]
    timings: Annotated[dict[str, float], add_timings]
    model_calls: Annotated[int, add_int]


class ConversationState(TypedDict, total=False):
    """State of the outer graph (prepare → retrieve → synthesize).

    Fields the retrieval subgraph also owns have no reducer here: the subgraph returns their whole
    final value, which replaces the parent's (so nothing is counted twice).
    """

    raw_question: str
    history: list[tuple[str, str]]
    allow_general: bool
    question: str
    filters: SearchFilters
    tool_override: str | None
    max_iterations: int
    query_type: QueryType
    sub_questions: list[str]
    grep_keywords: list[str]
    records: list[ExecutionRecord]
    evidence: list[Evidence]
    evidence_scores: list[float]
    iterations: list[IterationGrade]
    iteration: int
    stop_reason: StopReason
    trace: list[TraceEvent]
    timings: dict[str, float]
    model_calls: int
    answer: str
    citations: list[Any]
    answer_source: AnswerSource
    fallback_reason: str | None
    confidence: float
