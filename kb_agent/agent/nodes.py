"""The graph's nodes (node name = function name): prepare, analyze_and_route, plan, tool_exec,
grade_evidence, synthesize. Each takes the state and the run's dependencies and returns a partial update."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from langgraph.types import Overwrite

from kb_agent.agent import prompts
from kb_agent.agent.analyzer import ROUTING_TABLE, analyze_question, named_words
from kb_agent.agent.citations import VerifiedAnswer, verify_answer, verify_model_answer
from kb_agent.agent.condense import ask_of
from kb_agent.agent.execute import EventSink, SearchTools, execute_plan
from kb_agent.agent.grade import (
    IdfWeights,
    TermWeights,
    decide,
    deterministic_scores,
    missing_keywords,
    question_pool,
    question_terms,
    uniform_weights,
)
from kb_agent.agent.plan import ALL_TOOLS, CHINESE_OBJECTIVE, ENGLISH_OBJECTIVE, STEP_TIMEOUT_S, PlanRequest, make_plan
from kb_agent.agent.schemas import GradeBatch, RouteDecision, SynthesizedAnswer
from kb_agent.agent.state import GRADED, ConversationState, IterationGrade, RetrievalState
from kb_agent.agent.subjects import comparison_subjects, mention_route, subject_gaps
from kb_agent.agent.synthesize import (
    ASKING_MIN_TERMS,
    Draft,
    asking_sentences,
    extractive_answer,
    model_sources,
    model_units,
    not_found_text,
    select_items,
)
from kb_agent.agent.units import UnitCache
from kb_agent.errors import InvalidQuery, LlmError
from kb_agent.index.glosses import english_query
from kb_agent.index.tokenize import has_cjk
from kb_agent.llm.retry import MeteredModel, RetryPolicy, complete_structured, complete_with_retry
from kb_agent.retrieval.query import MAX_QUESTION_CHARS as MAX_QUESTION_CHARS  # chat/repl.py reads it here
from kb_agent.retrieval.query import clean_query, clean_text
from kb_agent.types import Evidence, SearchFilters

# the model grades at most this many items in its one batched call; the rest get deterministic scores
MODEL_GRADE_MAX = 12
# below this best grade the KB is taken not to hold the answer (calibrated with the grader; docs/AGENT.md)
ANSWER_MIN_SCORE = 0.5

_INLINE_FILTER = re.compile(r"(?<!\S)(tag|path):(\"[^\"]+\"|'[^']+'|\S+)")


@dataclass
class AgentDeps:
    """What the nodes need besides the state: tools, model, settings-derived numbers, event sink."""

    tools: SearchTools
    model: MeteredModel
    root: Path
    drop_below: float = 0.3
    generate_at: float = 0.7
    reretrieve_below: float = 0.3
    top_k: int = 10
    step_timeout_s: float = STEP_TIMEOUT_S
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    term_weights: TermWeights | None = None
    emit: EventSink = field(default=lambda _e: None)
    redact: Callable[[str], str] = field(default=lambda s: s)

    @property
    def online(self) -> bool:
        return not self.model.offline


@dataclass
class NodeRun:
    """Per-call scratch: a one-line detail and trace notes (fallbacks, retries) for the TraceEvent."""

    detail: str = ""
    notes: list[str] = field(default_factory=list)


def parse_inline_filters(question: str) -> tuple[str, SearchFilters]:
    """Take `tag:X` and `path:GLOB` out of the question text.

    Returns:
        The question without them, and the filters they named.
    """
    tags: list[str] = []
    paths: list[str] = []
    for m in _INLINE_FILTER.finditer(question):
        value = m.group(2).strip("\"'")
        (tags if m.group(1) == "tag" else paths).append(value)
    rest = " ".join(_INLINE_FILTER.sub(" ", question).split())
    return rest, SearchFilters(tags=tuple(tags), path_globs=tuple(paths))


# ---- conversation graph nodes ----


def prepare(state: ConversationState, deps: AgentDeps, run: NodeRun) -> dict[str, Any]:
    """Validate and clean the question, parse inline filters, condense a follow-up against history.

    Raises:
        InvalidQuery: empty, or longer than MAX_QUESTION_CHARS.
    """
    text = clean_query(state.get("raw_question", ""), noun="question", example='kb ask "how do I roll back a deploy?"')
    text, inline = parse_inline_filters(text)
    if not text:
        raise InvalidQuery("the question has only filters (tag:/path:) and no words", hint="add the question after the filters")
    given: SearchFilters = state.get("filters") or SearchFilters()
    filters = SearchFilters(
        tags=tuple(dict.fromkeys((*given.tags, *inline.tags))),
        path_globs=tuple(dict.fromkeys((*given.path_globs, *inline.path_globs))),
    )
    history = state.get("history") or []
    question = text
    if history:
        from kb_agent.agent.condense import condense, priors_from_pairs

        condensed = condense(text, priors_from_pairs(history), history=history, model=deps.model if deps.online else None,
                             policy=deps.policy, notes=run.notes)
        question = condensed.question
        if condensed.note:
            run.notes.append(condensed.note)
    shown = [f"tag:{t}" for t in filters.tags] + [f"path:{g}" for g in filters.path_globs]
    run.detail = f"{len(question)} chars" + (f", filters {' '.join(shown)}" if shown else "")
    return {"question": question, "filters": filters, "iteration": 0, "stop_reason": None}


def analyze_and_route(state: RetrievalState, deps: AgentDeps, run: NodeRun) -> dict[str, Any]:
    """Decide the query type, keywords, sub-questions and the tools for this attempt.

    One structured model call when a model is configured and the question is not simple (or when a
    previous attempt found nothing); otherwise the deterministic analyzer. A re-retrieval rotates
    to the next tool of the routing table, so the new attempt differs from the last.
    """
    question = state["question"]
    attempt = state.get("attempt", 0)
    analysis = analyze_question(question)
    query_type = analysis.query_type
    sub_questions = list(analysis.sub_questions)
    keywords = list(analysis.grep_keywords)
    suggested: list[str] = list(analysis.suggested_tools)
    hint = state.get("missing_hint", "") if attempt > 0 else ""
    use_model = deps.online and not state.get("tool_override") and (not analysis.fast_path or attempt > 0)
    if use_model:
        try:
            decision = complete_structured(deps.model, prompts.route_messages(question, hint), RouteDecision, policy=deps.policy, notes=run.notes).value
            query_type = decision.query_type
            sub_questions = decision.sub_questions or sub_questions
            keywords = list(dict.fromkeys([*analysis.exact_terms, *decision.grep_keywords, *keywords]))[:8]
            suggested = [t for t in decision.suggested_tools if t in ALL_TOOLS] or list(ROUTING_TABLE[query_type])
            run.notes.append("route from the model")
        except LlmError as e:
            run.notes.append(f"route fell back to the deterministic analyzer: {e.message}")
    override = state.get("tool_override")
    if override:
        routing = [override]
    else:
        # the table's tools first, then the general-purpose ones, so every re-retrieval can rotate to a new tool
        base = list(dict.fromkeys([*suggested, *ROUTING_TABLE[query_type], "hybrid", "grep"]))
        shift = attempt % len(base)
        routing = base[shift:] + base[:shift]
    exact_terms = list(analysis.exact_terms)
    fast_path = analysis.fast_path and not (use_model and sub_questions)
    mention = None if override else mention_route(question, routing, exact_terms, keywords)
    if mention is not None:
        routing, exact_terms, keywords = mention
        fast_path = False
    elif not sub_questions and not override:
        sub_questions = comparison_subjects(question)  # shapes the analyzer misses ("A or B: which?")
        fast_path = fast_path and not sub_questions
    run.detail = f"{query_type} → {' → '.join(routing)}" + (" (fast path)" if analysis.fast_path and not sub_questions else "")
    if attempt > 0:
        run.notes.append(f"re-retrieve attempt {attempt + 1}: {hint}")
    return {
        "query_type": query_type,
        "sub_questions": sub_questions if not fast_path or use_model else [],
        "suggested_tools": suggested,
        "grep_keywords": keywords,
        "exact_terms": exact_terms,
        "fast_path": fast_path,
        "routing": routing,
        "attempt": attempt + 1,
    }


def plan(state: RetrievalState, deps: AgentDeps, run: NodeRun) -> dict[str, Any]:
    """Plan this iteration's steps; REFINE plans search only for what the kept evidence lacks."""
    iteration = state.get("iteration", 0) + 1
    missing: tuple[str, ...] = ()
    if state.get("grader_action") == "refine" and state.get("iterations"):
        missing = state["iterations"][-1].missing
    req = PlanRequest(
        question=state["question"],
        routing=tuple(state.get("routing", ())),
        exact_terms=tuple(state.get("exact_terms", ())),
        keywords=tuple(state.get("grep_keywords", ())),
        sub_questions=tuple(state.get("sub_questions", ())),
        fast_path=bool(state.get("fast_path")),
        iteration=iteration,
        tried=frozenset(state.get("tried", [])),
        top_k=deps.top_k,
        timeout_s=deps.step_timeout_s,
        missing=missing,
        safety_net=not state.get("tool_override"),
        names=tuple(named_words(state["question"])),
        english=_english_query(state, deps) if not missing and has_cjk(state["question"]) else "",
        chinese=_chinese_query(state, deps) if not missing else "",
    )
    steps = make_plan(req)
    if not steps:
        run.detail = "nothing new to try"
        return {"plan": [], "stop_reason": "exhausted" if state.get("evidence") else "no_evidence"}
    run.detail = "; ".join(f"{s.step_id} {s.tool}({s.tool_input!r})" + (f" after {','.join(s.depends_on)}" if s.depends_on else "") for s in steps)
    return {"plan": steps, "iteration": iteration, "tried": [s.signature for s in steps]}


def _english_query(state: RetrievalState, deps: AgentDeps) -> str:
    """A Chinese question's words in English, the glosses the KB writes first when its statistics are at hand."""
    question = state["question"]
    weights = deps.term_weights
    if isinstance(weights, IdfWeights):
        return weights.english_query(question, question_terms(question))
    return english_query(question, question_terms(question))


def _chinese_query(state: RetrievalState, deps: AgentDeps) -> str:
    """An English question's words in Chinese when the KB is written in Chinese (IdfWeights.chinese_query), else ''."""
    question = state["question"]
    weights = deps.term_weights
    if not isinstance(weights, IdfWeights):
        return ""
    names = list(dict.fromkeys([*state.get("exact_terms", ()), *named_words(question)]))
    return weights.chinese_query(question, question_terms(question, weights), names)


def tool_exec(state: RetrievalState, deps: AgentDeps, run: NodeRun) -> dict[str, Any]:
    """Run the plan's steps (ready ones in parallel), record each, merge the evidence."""
    results = execute_plan(state.get("plan", []), deps.tools, filters=state.get("filters") or SearchFilters(),
                           iteration=state.get("iteration", 1), on_event=deps.emit)
    # the step that searched a Chinese question's words in English keeps only English passages, and the reverse
    english = {s.step_id for s in state.get("plan", []) if s.objective == ENGLISH_OBJECTIVE}
    chinese = {s.step_id for s in state.get("plan", []) if s.objective == CHINESE_OBJECTIVE}
    evidence = [e for r in results for e in r.evidence
                if not (r.record.step_id in english and has_cjk(e.text) or r.record.step_id in chinese and not has_cjk(e.text))]
    statuses = [f"{r.record.step_id}:{r.record.status}" for r in results]
    run.detail = f"{len(evidence)} hits ({', '.join(statuses)})"
    for r in results:
        if r.record.status != "success":
            run.notes.append(f"step {r.record.step_id} {r.record.status}: {r.record.error}")
    return {"records": [r.record for r in results], "evidence": evidence}


def asked_scores(question: str, items: Sequence[Evidence], term_weights: TermWeights) -> list[float]:
    """The calibrated scorer's grade of each item for the sentences of the question that ask, when it tells the user's
    situation first (else zeros): "I keep adding a team=payments label … by hand, and a few minutes later Flux strips
    it again. What do I have to tell kubectl so my label survives reconciliation?" is answered by a passage on what it
    asks, which need not retell the situation (session 32: every answerable question refused on the four new sets, five,
    was of this shape). These grades decide only what is kept and whether to answer: the kept items keep their order and
    grades for the whole question, which rank the units the answer quotes."""
    ask = asking_sentences(question)
    if ask == question or len(question_terms(ask, term_weights)) < ASKING_MIN_TERMS:
        return [0.0] * len(items)
    return deterministic_scores(ask, items, term_weights=term_weights)


def grade_evidence(state: RetrievalState, deps: AgentDeps, run: NodeRun) -> dict[str, Any]:
    """CRAG: score every item (one batched model call, else the calibrated scorer), drop the weak ones,
    and choose GENERATE / REFINE / RE-RETRIEVE; the iteration cap stops the loop."""
    question = state["question"]
    items: list[Evidence] = list(state.get("evidence", []))
    exact = state.get("exact_terms", [])
    det = deterministic_scores(question, items, exact_terms=exact, term_weights=deps.term_weights or uniform_weights)
    scores = det
    grader = "deterministic"
    if deps.online and items:
        head = items[:MODEL_GRADE_MAX]

        def one_per_item(batch: GradeBatch) -> None:
            if len(batch.scores) != len(head):
                raise ValueError(f"expected {len(head)} scores, got {len(batch.scores)}")

        try:
            batch = complete_structured(deps.model, prompts.grade_messages(question, head), GradeBatch,
                                        policy=deps.policy, notes=run.notes, check=one_per_item).value
            scores = [*batch.scores, *det[len(head):]]
            grader = "model"
        except LlmError as e:
            run.notes.append(f"grading fell back to the deterministic scorer: {e.message}")
    # a passage kept in an earlier round keeps its grade (state.GRADED): the rank feature reads the rank
    # of whichever tool's hit won the merge, and a refine search for one keyword ranks the right lines lower
    scores = [max(s, float(it.explain.get(GRADED, 0.0))) for s, it in zip(scores, items)]
    decision = decide(scores, drop_below=deps.drop_below, generate_at=deps.generate_at,
                      reretrieve_below=deps.reretrieve_below, question_pool=question_pool(items))
    # the items a question's asking sentences grade as relevant are kept too (asked_scores); whether to search again is
    # the whole question's call (a refine round finds what the situation names: prometheus.yml's reload by SIGHUP)
    lifted = scores if grader == "model" else [max(s, a) for s, a in zip(scores, asked_scores(question, items, deps.term_weights or uniform_weights))]
    keep = decision if lifted == scores else decide(lifted, drop_below=deps.drop_below, generate_at=deps.generate_at,
                                                    reretrieve_below=deps.reretrieve_below, question_pool=question_pool(items))
    kept = [replace(items[i], explain={**items[i].explain, GRADED: scores[i]}) for i in keep.kept]
    kept_scores = [scores[i] for i in keep.kept]
    missing = tuple(missing_keywords(state.get("grep_keywords", []), kept)) if decision.action != "generate" else ()
    action = decision.action
    gaps = subject_gaps(question, kept)
    if gaps:  # a comparison is answered only when every subject is covered: search for the missing one
        action = "refine" if action == "generate" else action
        missing = tuple(dict.fromkeys((*gaps, *missing)))
    iteration = state.get("iteration", 1)
    grade = IterationGrade(iteration, action, decision.mean_score, len(keep.kept), len(keep.dropped), grader, missing)  # type: ignore[arg-type]
    stop = None
    if action == "generate":
        stop = "generate"
    elif iteration >= state.get("max_iterations", 3):
        stop = "max_iterations"
    update: dict[str, Any] = {
        "evidence": Overwrite(kept),
        "evidence_scores": kept_scores,
        "iterations": [grade],
        "grader_action": action,
        "stop_reason": stop,
    }
    if action == "re_retrieve":
        tools_tried = sorted({r.tool for r in state.get("records", [])})
        looked_for = ", ".join(state.get("grep_keywords", [])) or question
        update["missing_hint"] = f"Nothing relevant was found for: {looked_for} (tools tried: {', '.join(tools_tried) or 'none'})."
    run.detail = f"{grader}: mean {decision.mean_score:.2f}, kept {len(kept)}, dropped {len(keep.dropped)} → {action}" + (f" (stop: {stop})" if stop and stop != "generate" else "")
    return update


def synthesize(state: ConversationState, deps: AgentDeps, run: NodeRun) -> dict[str, Any]:
    """Write the answer from the best ≤ 10 items: the model's [n]-cited text or the extractive answer;
    verify every citation; or say plainly that the KB does not hold the answer."""
    question = state["question"]
    items = state.get("evidence", [])
    scores = state.get("evidence_scores", [])
    if len(scores) != len(items):  # loop left before a grade (nothing new to try): grade now, offline
        scores = deterministic_scores(question, items, term_weights=deps.term_weights or uniform_weights)
    selected = select_items(items, scores)
    best = selected[0][1] if selected else 0.0
    if selected and best < ANSWER_MIN_SCORE and not deps.online:
        best = max(best, *asked_scores(question, [it for it, _ in selected], deps.term_weights or uniform_weights))
    analysis = analyze_question(question)
    verified: VerifiedAnswer | None = None
    confidence = 0.0
    cache = UnitCache(deps.root)
    subjects = analysis.sub_questions or tuple(comparison_subjects(question)) or tuple(state.get("sub_questions", []))
    uncovered: tuple[str, ...] = ()
    if selected and best >= ANSWER_MIN_SCORE:
        if deps.online:
            units = model_units(question, selected, cache, exact_terms=analysis.exact_terms, term_weights=deps.term_weights or uniform_weights)
            verified, confidence = _model_answer(question, units, deps, run)
        if verified is None or not verified.citations:
            # a condensed follow-up is answered for its new ask first (agent/condense.ask_of), the whole text as fallback
            for asked in dict.fromkeys((ask_of(question), question)):
                draft: Draft = extractive_answer(asked, selected, cache, sub_questions=subjects,
                                                 exact_terms=analysis.exact_terms, term_weights=deps.term_weights or uniform_weights)
                uncovered = draft.uncovered
                if draft.body and not uncovered:
                    break
            if draft.body and not uncovered:
                verified = verify_answer(draft.body, draft.sources, deps.root, placed=True)
                confidence = draft.confidence
                for why in verified.removed:
                    run.notes.append(f"citation removed: {why}")
    if verified is not None and verified.citations:
        run.detail = f"{len(verified.citations)} citations verified" + (f", {len(verified.removed)} removed" if verified.removed else "")
        return {"answer": verified.text, "citations": list(verified.citations), "answer_source": "kb",
                "fallback_reason": None, "confidence": confidence}
    reason = "no relevant evidence in the knowledge base" if not selected else (
        f"best evidence scored {best:.2f}, below {ANSWER_MIN_SCORE}" if best < ANSWER_MIN_SCORE else
        f"nothing found about {' or '.join(repr(s) for s in uncovered)}" if uncovered else "no citation could be verified")
    if state.get("allow_general"):
        if deps.online:
            try:
                text = complete_with_retry(deps.model, prompts.general_messages(question), policy=deps.policy, notes=run.notes,
                                           on_token=lambda t: deps.emit({"type": "token", "text": t}))
                run.detail = "general-knowledge answer (not from the KB)"
                return {"answer": "Not from your knowledge base (general knowledge):\n\n" + text.strip(), "citations": [],
                        "answer_source": "llm_fallback", "fallback_reason": reason, "confidence": 0.0}
            except LlmError as e:
                run.notes.append(f"general answer failed: {e.message}")
                reason += f"; general answer failed: {e.message}"
        else:
            reason += "; no chat model is configured for a general answer"
    run.detail = f"not found ({reason})"
    return {"answer": not_found_text([e for e, _ in selected]), "citations": [], "answer_source": "none",
            "fallback_reason": reason, "confidence": 0.0}


def _model_answer(question: str, selected: list[tuple[Evidence, float]], deps: AgentDeps, run: NodeRun) -> tuple[VerifiedAnswer | None, float]:
    items = [e for e, _ in selected]
    sources = model_sources(selected)
    try:
        pool = question_pool(_with_chunk_questions(items, deps.tools))
        text = complete_with_retry(deps.model, prompts.synthesize_messages(question, items, pool), policy=deps.policy,
                                   notes=run.notes, on_token=lambda t: deps.emit({"type": "token", "text": t}))
    except LlmError as e:
        run.notes.append(f"synthesis fell back to the extractive answer: {e.message}")
        return None, 0.0
    parsed = parse_model_answer(text)
    if "NOT_IN_KB" in parsed.answer and not parsed.used_sources:
        run.notes.append("the model said the sources do not answer the question; extractive answer tried")
        return None, 0.0
    verified, claim_notes = verify_model_answer(parsed.answer, sources, deps.root)
    run.notes.extend(claim_notes)
    for why in verified.removed:
        run.notes.append(f"citation removed: {why}")
    if not verified.citations:
        run.notes.append("no sentence of the model's answer survived verification; extractive answer used")
        return None, 0.0
    cited = {c.path for c in verified.citations}
    grades = [g for e, g in selected if e.path in cited] or [0.0]
    return verified, round(sum(grades) / len(grades), 3)


_MARKER = re.compile(r"\[(\d{1,3})\]")


def parse_model_answer(text: str) -> SynthesizedAnswer:
    """The model's streamed text as a SynthesizedAnswer (body and the source numbers it cites)."""
    body = text.strip()
    used = sorted({int(n) for n in _MARKER.findall(body)})
    return SynthesizedAnswer(answer=body, used_sources=used)


def _with_chunk_questions(items: list[Evidence], tools: object) -> list[Evidence]:
    """Each source with the questions of the chunks it overlaps (model-written first, seed 000) when the
    tool that found it carried none: grep passages and line windows cut across chunks and carry none."""
    cat = getattr(getattr(tools, "index", None), "catalog", None)
    if cat is None:
        return items
    rows: dict[str, list[Any]] = {}
    out = []
    for e in items:
        if not e.questions:
            if e.path not in rows:
                rows[e.path] = cat.chunks_for(e.path)
            asked = (q for row in rows[e.path] if row.start_line <= e.end_line and e.start_line <= row.end_line for q in row.questions)
            e = replace(e, questions=tuple(dict.fromkeys(asked)))
        out.append(e)
    return out
