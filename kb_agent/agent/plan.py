"""plan: turn the route (query type, tools, keywords, sub-questions) into PlanSteps, never repeating
a step already run, and refine plans that search only for what is still missing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kb_agent.agent.state import Budget, PlanStep, StepTool

# one tool call may wait on rg (KB_RG_TIMEOUT_S, 10 s) or a cold embedding model; beyond this it is abandoned
STEP_TIMEOUT_S = 20.0
# grep keeps only the rarest few terms of a long input; beyond this many words it is the wrong tool
GREP_MAX_INPUT_WORDS = 8
ALL_TOOLS: tuple[StepTool, ...] = ("hybrid", "vector", "grep", "files", "related")
# the objective of the step that searches a Chinese question's words in English: it looks for English
# pages, so only its passages without Chinese are kept (the Chinese ones the question itself reaches)
ENGLISH_OBJECTIVE = "hybrid search with the question's words in English"
CHINESE_OBJECTIVE = "hybrid search with the question's words in Chinese"


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """Everything plan needs to know about the current attempt."""

    question: str
    routing: tuple[str, ...]  # tools for this attempt, best first
    exact_terms: tuple[str, ...]
    keywords: tuple[str, ...]
    sub_questions: tuple[str, ...]
    fast_path: bool
    iteration: int
    tried: frozenset[str]
    top_k: int
    timeout_s: float = STEP_TIMEOUT_S
    missing: tuple[str, ...] = ()  # set for REFINE: terms no kept passage covers
    safety_net: bool = True  # False when the user pinned one tool (`--tool`): plan only that tool
    names: tuple[str, ...] = ()  # words the question writes as names (`Flask`, `AWS Lambda`), not exact terms
    english: str = ""  # a Chinese question's search words in English (index/glosses.py), '' otherwise
    chinese: str = ""  # an English question's search words in Chinese (a KB that holds Chinese), '' otherwise


def candidate_inputs(tool: str, req: PlanRequest) -> list[str]:
    """Inputs worth trying with `tool`, most promising first (later ones serve as 'other keywords')."""
    kw = " ".join(req.keywords)
    # a lone ordinary word ("later", "back") left over from a question matches anything: only exact
    # terms, or the single keyword of a one-keyword question, are searched on their own
    singles = [*req.exact_terms, *(req.keywords if len(req.keywords) == 1 else ())]
    if tool == "grep":
        # grep ORs the rarest few terms of its input, so joined keywords work; single terms are the fallbacks
        out = [" ".join(req.exact_terms), kw, *singles]
        return [x for x in out if x and len(x.split()) <= GREP_MAX_INPUT_WORDS]
    if tool in ("files", "related"):
        return [x for x in (" ".join(req.exact_terms) if req.exact_terms else "", kw, req.question, *singles) if x]
    return [x for x in (req.question, kw, *singles) if x]


def _fresh(tool: StepTool, inputs: Sequence[str], taken: set[str]) -> str | None:
    for text in inputs:
        sig = PlanStep("", "", tool, text).signature
        if sig not in taken:
            taken.add(sig)
            return text
    return None


def make_plan(req: PlanRequest) -> list[PlanStep]:
    """Plan the steps of one iteration.

    Initial attempt: the first routed tool (fast path: one step, plus read_file after `related`);
    comparisons and multi-part questions get one independent step per sub-question and a
    read_file step that depends on them. REFINE (`req.missing` set): steps that search for the
    missing terms only. Every step's signature differs from the steps in `req.tried`; when the
    routed tools have nothing new left, the remaining tools are tried; an empty list means the
    strategies are exhausted.

    Args:
        req: the attempt description.

    Returns:
        The steps, in dependency order.
    """
    taken = set(req.tried)
    budget = Budget(timeout_s=req.timeout_s, top_k=req.top_k)
    steps: list[PlanStep] = []

    def add(tool: StepTool, inputs: Sequence[str], objective: str, depends_on: tuple[str, ...] = ()) -> PlanStep | None:
        text = _fresh(tool, inputs, taken)
        if text is None:
            return None
        step = PlanStep(f"i{req.iteration}s{len(steps) + 1}", objective, tool, text, depends_on, budget)
        steps.append(step)
        return step

    routing = [t for t in req.routing if t in ALL_TOOLS]
    fallbacks = [t for t in ALL_TOOLS if t not in routing]

    if req.missing:
        missing_exact = [t for t in req.missing if t in req.exact_terms]
        for term in missing_exact:
            if add("grep", [term], f"find the missing term {term!r}") is None:
                add("hybrid", [term, f"{req.question} {term}"], f"find the missing term {term!r}")
        if not steps:
            # a different strategy than the one that came back weak: hybrid adds the lexical list to the vectors
            tool: StepTool = "hybrid"
            gap = " ".join(req.missing)
            # the gap alone only when it is exact-looking: ordinary leftover words search with the question
            inputs = [gap, f"{req.question} {gap}"] if missing_exact else [f"{req.question} {gap}"]
            add(tool, inputs, f"search for what is missing: {gap}")
        if steps:
            return steps

    if req.sub_questions and not req.fast_path:
        primary: StepTool = routing[0] if routing else "hybrid"
        if primary in ("grep", "files", "related"):
            primary = "hybrid"  # sub-questions are phrases, which the lexical tools match poorly
        parts = [add(primary, [sub, *req.keywords], f"find: {sub}") for sub in req.sub_questions]
        ids = tuple(p.step_id for p in parts if p is not None)
        if ids:
            add("read_file", [f"expand {' '.join(ids)} #{req.iteration}"], "read the surrounding lines of the best hits", ids)
            return steps

    added = 0
    for tool in [*routing, *fallbacks]:
        step = add(tool, candidate_inputs(tool, req), f"{tool} search for the question")
        if step is None:
            continue
        added += 1
        if tool == "related":
            add("read_file", [f"expand {step.step_id} #{req.iteration}"], "read the linked sections", (step.step_id,))
        # a question that is not simple also runs the backup tool in parallel with the first one
        if req.fast_path or added >= 2 or routing[:1] != [tool]:
            break
    if req.safety_net and steps:
        _add_safety_net(req, steps, add)
        if req.english:
            # a Chinese question over English pages shares no word with them: search their words too
            add("hybrid", [req.english], ENGLISH_OBJECTIVE)
        if req.chinese:
            # and an English question over Chinese pages searches their words (screen → 屏幕)
            add("hybrid", [req.chinese], CHINESE_OBJECTIVE)
    return steps


def _add_safety_net(req: PlanRequest, steps: list[PlanStep], add: Callable[..., PlanStep | None]) -> None:
    """The plan must not depend on the query type being right: exact-looking terms (identifiers,
    quoted strings, flags, paths, commands) and names (`Flask`, `Kafka`) always also get a grep step, and a plan with no search by
    meaning (a grep, files or related route) gets a hybrid step (grep-BM25 + vectors). A vector-routed
    plan already searches by meaning; hybrid stays its backup in the next round (DESIGN's routing table):
    running both at once let rank features of the hybrid list lift unrelated passages over the
    not-found line (sample_kb's not-found-datadog check with the default embedder)."""
    tools = {s.tool for s in steps}
    literal = [*req.exact_terms, *(n for n in req.names if n not in req.exact_terms)]
    if literal and "grep" not in tools:
        add("grep", [" ".join(literal), *literal], "grep for the exact terms and names the question writes")
    if not tools & {"hybrid", "vector"}:
        add("hybrid", [req.question, " ".join(req.keywords)], "hybrid search as a safety net for the route")
