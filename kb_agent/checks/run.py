"""Run a check spec: ask each question through the agent (one Engine per run) and judge the answer
against the check's expectations. Results come back in spec order; nothing is printed."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kb_agent.checks.spec import Check, CheckSpec
from kb_agent.corpus.pathmatch import glob_match
from kb_agent.errors import InvalidQuery
from kb_agent.types import Citation, SearchFilters

if TYPE_CHECKING:
    from kb_agent.agent.engine import Engine
    from kb_agent.settings import Settings


class AnswerLike(Protocol):
    """The parts of the agent's Answer a check looks at."""

    @property
    def text(self) -> str: ...
    @property
    def citations(self) -> Sequence[Citation]: ...
    @property
    def query_type(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def answer_source(self) -> str: ...


class Answerer(Protocol):
    """What a check run needs from the agent: one answer per question."""

    def answer(self, question: str, *, tool: str | None, filters: SearchFilters | None) -> AnswerLike: ...


@dataclass(frozen=True, slots=True)
class Failure:
    """One unmet expectation: which key, why, and the spec line it is written on."""

    expectation: str  # answered | not_found | cites | contains | min_confidence | query_type | error
    message: str
    line: int


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The verdict on one check and the answer it was judged on."""

    check: Check
    failures: tuple[Failure, ...]
    answer_text: str
    answer_source: str
    query_type: str
    confidence: float
    citations: tuple[Citation, ...]
    duration_ms: float = field(default=0.0, compare=False)

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass(frozen=True, slots=True)
class CheckRun:
    """A whole spec's results plus how they were produced (which model, whether deterministic)."""

    spec: CheckSpec
    root: str
    results: tuple[CheckResult, ...]
    llm_provider: str
    deterministic: bool
    duration_s: float = field(default=0.0, compare=False)
    # why retrieval ran degraded (e.g. vectors unavailable on a read-only KB); the CLI says each once on stderr
    notices: tuple[str, ...] = field(default=(), compare=False)

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        return tuple(r for r in self.results if not r.passed)

    @property
    def ok(self) -> bool:
        return not self.failed


def open_answerer(settings: Settings) -> _EngineAnswerer:
    """The one place that decides what answers checks: the agent Engine, reused for every check."""
    from kb_agent.agent.engine import Engine

    return _EngineAnswerer(Engine(settings))


class _EngineAnswerer:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def answer(self, question: str, *, tool: str | None, filters: SearchFilters | None) -> AnswerLike:
        return self.engine.answer_query(question, tool=tool, filters=filters)

    @property
    def notices(self) -> list[str]:
        return self.engine.notices

    def close(self) -> None:
        self.engine.close()


def ensure_fresh_index(settings: Settings, *, reindex: bool) -> None:
    """Make sure checks run against an index that matches the files on disk.

    Args:
        settings: loaded settings.
        reindex: bring the index up to date (incremental) instead of refusing a stale one.

    Raises:
        IndexNotBuilt: there is no index and `reindex` is False.
        IndexStale: files changed since the index was built and `reindex` is False.
    """
    from kb_agent.errors import IndexNotBuilt, IndexStale
    from kb_agent.index.build import build_index, catalog_path

    if reindex:
        build_index(settings)
        return
    index_dir = settings.index_dir()
    if not catalog_path(index_dir).exists():
        raise IndexNotBuilt(f"no index in {index_dir}", hint="run `kb index` first, or pass --index")
    report = build_index(settings, check=True)
    if report.stale:
        parts = [f"{len(report.indexed)} new", f"{len(report.updated)} changed", f"{len(report.removed)} deleted"]
        first = (report.indexed or report.updated or report.removed)[0]
        raise IndexStale(f"the index is stale ({', '.join(parts)}; e.g. {first})", hint="run `kb index` first, or pass --index")


def run_checks(
    settings: Settings,
    spec: CheckSpec,
    *,
    answerer: Answerer | None = None,
    only: Sequence[str] = (),
    on_result: Callable[[CheckResult], None] | None = None,
) -> CheckRun:
    """Ask every check's question and judge the answers.

    Args:
        settings: loaded settings (KB root, providers).
        spec: the validated spec.
        answerer: what answers questions (default: the agent Engine, opened once for the run).
        only: run just these check ids (in spec order).
        on_result: called after each check (for progress; library code never prints).

    Returns:
        The CheckRun, results in spec order.

    Raises:
        UsageError: `only` names an id the spec does not have.
        IndexError_ subclasses: no index, or an incompatible one.
    """
    from kb_agent.errors import UsageError

    started = time.perf_counter()
    checks = spec.checks
    if only:
        known = {c.id for c in checks}
        unknown = [i for i in only if i not in known]
        if unknown:
            raise UsageError(f"no check with id {unknown[0]!r} in {spec.path}", hint="ids: " + ", ".join(sorted(known)))
        checks = tuple(c for c in checks if c.id in set(only))
    root = settings.kb_root()
    owned = open_answerer(settings) if answerer is None else None
    agent: Answerer = owned or answerer  # type: ignore[assignment]
    lines = _LineCache(root)
    results = []
    notices: tuple[str, ...] = ()
    try:
        for check in checks:
            result = run_one(agent, check, lines)
            results.append(result)
            if on_result is not None:
                on_result(result)
        notices = tuple(getattr(agent, "notices", None) or ())
    finally:
        if owned is not None:
            owned.close()
    return CheckRun(
        spec=spec, root=str(root), results=tuple(results), llm_provider=settings.llm_provider,
        deterministic=settings.llm_provider == "none", duration_s=time.perf_counter() - started, notices=notices,
    )


def run_one(agent: Answerer, check: Check, lines: _LineCache) -> CheckResult:
    """Ask one check's question and judge the answer (an unusable question is a failure, not a crash)."""
    t0 = time.perf_counter()
    filters = check.filters if check.filters.active else None
    try:
        ans = agent.answer(check.question, tool=check.tool, filters=filters)
    except InvalidQuery as e:
        return CheckResult(check, (Failure("error", e.message, check.line_of("question")),), "", "none", "", 0.0, (), _ms(t0))
    citations = tuple(ans.citations or ())
    failures = judge(check, ans, citations, lines)
    return CheckResult(
        check=check, failures=tuple(failures), answer_text=ans.text or "", answer_source=str(ans.answer_source),
        query_type=str(ans.query_type or ""), confidence=round(float(ans.confidence or 0.0), 4), citations=citations,
        duration_ms=_ms(t0),
    )


def judge(check: Check, ans: AnswerLike, citations: Sequence[Citation], lines: _LineCache) -> list[Failure]:
    """Every expectation the answer misses, in the order they are written in the check."""
    failures: list[Failure] = []
    answered = ans.answer_source == "kb" and bool(citations)
    if check.not_found:
        if answered:
            cited = ", ".join(c.location for c in citations[:3])
            failures.append(Failure("not_found", f"expected no answer from the KB, but it answered citing {cited}", check.line_of("not_found")))
    elif not answered:
        why = "answered from general knowledge, not the KB" if ans.answer_source == "llm_fallback" else "the KB did not answer"
        failures.append(Failure("answered", f"{why} (answer_source={ans.answer_source})", check.line_of("question")))
    paths = [c.path for c in citations]
    for exp in check.cites:
        if not any(glob_match(p, exp.value) for p in paths):
            got = ", ".join(dict.fromkeys(paths)) or "nothing"
            failures.append(Failure("cites", f"expected a citation matching {exp.value!r}; cited {got}", exp.line))
    if check.contains:
        haystack = normalize("\n".join([ans.text or "", *(lines.text(c) for c in citations)]))
        for exp in check.contains:
            if normalize(exp.value) not in haystack:
                failures.append(Failure("contains", f"{exp.value!r} is not in the answer or its cited lines", exp.line))
    if check.min_confidence is not None and float(ans.confidence or 0.0) < check.min_confidence:
        failures.append(Failure("min_confidence", f"confidence {float(ans.confidence or 0.0):.2f} is below {check.min_confidence:.2f}", check.line_of("min_confidence")))
    if check.query_type is not None and str(ans.query_type) != check.query_type:
        failures.append(Failure("query_type", f"query type is {ans.query_type!r}, expected {check.query_type!r}", check.line_of("query_type")))
    failures.sort(key=lambda f: f.line)
    return failures


def normalize(text: str) -> str:
    """Case-, width- and whitespace-insensitive form for `contains` (markdown emphasis ignored)."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"(\*\*|__|`)", "", text)
    return " ".join(text.split())


class _LineCache:
    """The cited files' lines as they are on disk now, read once per run."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._files: dict[str, list[str]] = {}

    def text(self, c: Citation) -> str:
        if c.path not in self._files:
            try:
                from kb_agent.corpus.fileio import read_kb_text

                full = (self.root / c.path).resolve()
                full.relative_to(self.root)
                self._files[c.path] = read_kb_text(full).split("\n")
            except (OSError, ValueError):
                self._files[c.path] = []
        lines = self._files[c.path]
        return "\n".join(lines[max(0, c.start_line - 1) : c.end_line]) or c.quote


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)
