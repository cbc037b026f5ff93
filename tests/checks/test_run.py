"""Judging answers against expectations, with a scripted answerer (no index, no model)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kb_agent.checks.run import normalize, run_checks
from kb_agent.corpus.pathmatch import glob_match
from kb_agent.checks.spec import parse_spec
from kb_agent.errors import InvalidQuery, UsageError
from kb_agent.settings import Settings
from kb_agent.types import Citation, SearchFilters


@dataclass
class FakeAnswer:
    text: str
    citations: tuple[Citation, ...]
    query_type: str = "exact"
    confidence: float = 0.9
    answer_source: str = "kb"


@dataclass
class Scripted:
    answers: dict[str, FakeAnswer]
    calls: list[tuple[str, str | None, SearchFilters | None]] = field(default_factory=list)

    def answer(self, question: str, *, tool: str | None, filters: SearchFilters | None) -> FakeAnswer:
        self.calls.append((question, tool, filters))
        if question == "boom":
            raise InvalidQuery("the question is empty after cleaning")
        return self.answers.get(question, FakeAnswer("The knowledge base does not answer this question.", (), "conceptual", 0.0, "none"))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "config.md").write_text("# Config\n\nThe cache TTL default is **300** seconds.\nPool: 20\n", encoding="utf-8")
    return tmp_path


def cite(path: str, start: int, end: int) -> Citation:
    return Citation(1, path, start, end, "")


def test_glob_match() -> None:
    assert glob_match("docs/config.md", "docs/config.md")
    assert glob_match("docs/config.md", "config.md")  # a bare name matches in any folder
    assert glob_match("docs/config.md", "docs/*.md")
    assert not glob_match("docs/sub/config.md", "docs/*.md")
    assert glob_match("docs/sub/config.md", "docs/**/*.md")
    assert glob_match("docs/config.md", "docs/**/*.md")
    assert glob_match("docs/config.md", "docs/")
    assert glob_match("incidents/2026-01-ops-2051-x.md", "incidents/*ops-2051*")
    # gitignore's meaning, the same as `kb search --path`: a folder a pattern matches takes its contents
    assert glob_match("runbooks/db/restore.md", "runbooks/*")
    assert not glob_match("runbooks/db/restore.md", "runbooks/*.md")
    assert glob_match("docs/a1.md", "docs/a[0-9].md") and not glob_match("docs/ab.md", "docs/a[!b].md")
    assert not glob_match("docs/config.md", "config")


def test_normalize_ignores_case_width_space_and_emphasis() -> None:
    assert normalize("The  **TTL**\n is `300`") == "the ttl is 300"
    assert normalize("ＡＢＣ") == "abc"


def test_expectations(root: Path) -> None:
    spec = parse_spec(
        """\
checks:
  - id: pass
    question: ttl?
    cites: config.md
    contains: [ttl default is 300, "Pool: 20"]
    min_confidence: 0.5
    query_type: exact
  - id: fail-all
    question: ttl again?
    cites: [runbooks/*.md, docs/]
    contains: "600"
    min_confidence: 0.95
    query_type: conceptual
  - id: unanswered
    question: wifi?
  - id: must-not-answer
    question: ttl?
    not_found: true
  - id: ok-not-found
    question: wifi?
    not_found: true
  - id: bad-question
    question: boom
    tool: grep
    paths: docs/
""",
        "s.yaml",
    )
    good = FakeAnswer("It is 300 [1].", (cite("docs/config.md", 3, 4),))
    agent = Scripted({"ttl?": good, "ttl again?": good})
    run = run_checks(Settings(root=root), spec, answerer=agent)
    got = {r.check.id: [(f.expectation, f.line, f.message) for f in r.failures] for r in run.results}
    assert got == {
        "pass": [],
        "fail-all": [
            ("cites", 10, "expected a citation matching 'runbooks/*.md'; cited docs/config.md"),
            ("contains", 11, "'600' is not in the answer or its cited lines"),
            ("min_confidence", 12, "confidence 0.90 is below 0.95"),
            ("query_type", 13, "query type is 'exact', expected 'conceptual'"),
        ],
        "unanswered": [("answered", 15, "the KB did not answer (answer_source=none)")],
        "must-not-answer": [("not_found", 18, "expected no answer from the KB, but it answered citing docs/config.md:L3-L4")],
        "ok-not-found": [],
        "bad-question": [("error", 23, "the question is empty after cleaning")],
    }
    assert not run.ok and run.deterministic and run.llm_provider == "none"
    assert agent.calls[-1] == ("boom", "grep", SearchFilters(path_globs=("docs/",)))


def test_only_selects_and_rejects_unknown_ids(root: Path) -> None:
    spec = parse_spec("checks:\n  - id: a\n    question: x\n  - id: b\n    question: y\n", "s.yaml")
    run = run_checks(Settings(root=root), spec, answerer=Scripted({}), only=["b"])
    assert [r.check.id for r in run.results] == ["b"]
    with pytest.raises(UsageError, match="no check with id 'c'"):
        run_checks(Settings(root=root), spec, answerer=Scripted({}), only=["c"])


def test_llm_fallback_is_not_an_answer(root: Path) -> None:
    spec = parse_spec("checks:\n  - id: a\n    question: x\n", "s.yaml")
    agent = Scripted({"x": FakeAnswer("general knowledge", (), "conceptual", 0.5, "llm_fallback")})
    run = run_checks(Settings(root=root), spec, answerer=agent)
    assert run.results[0].failures[0].message == "answered from general knowledge, not the KB (answer_source=llm_fallback)"
