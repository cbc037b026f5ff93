"""The check spec loader: valid specs parse with line numbers; every bad spec names file, line and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.checks.spec import SpecError, load_spec, parse_spec
from kb_agent.errors import ExitCode
from tests.support.sample import SAMPLE_KB

GOOD = """\
version: 1
defaults:
  min_confidence: 0.4
checks:
  - id: ttl
    question: What is the   default TTL?
    cites: [reference/config.md, "reference/*.md"]
    contains: 0.10
  - id: nope
    question: What is the wifi password?
    not_found: true
    query_type: exact
"""


def test_valid_spec_keeps_lines_and_values() -> None:
    spec = parse_spec(GOOD, "s.yaml")
    ttl, nope = spec.checks
    assert (ttl.id, ttl.question, ttl.line) == ("ttl", "What is the default TTL?", 5)
    assert [(e.value, e.line) for e in ttl.cites] == [("reference/config.md", 7), ("reference/*.md", 7)]
    assert [(e.value, e.line) for e in ttl.contains] == [("0.10", 8)]  # as written, not the float 0.1
    assert ttl.min_confidence == 0.4  # from defaults
    assert ttl.line_of("contains") == 8
    assert nope.not_found and nope.min_confidence is None and nope.query_type == "exact"
    assert nope.line_of("not_found") == 11


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("checks:\n  - id: a\n    question: [unclosed\n", "s.yaml:4: YAML syntax error: while parsing a flow sequence expected ',' or ']', but got '<stream end>'"),
        ("checks:\n  - id: a\n    question: q\n    cite: a.md\n", "s.yaml:4: check: unknown key 'cite'"),
        ("checks:\n  - id: a\n    contains: x\n", "s.yaml:2: check 'a' has no `question`"),
        ("checks:\n  - question: q\n", "s.yaml:2: check at line 2 has no `id`"),
        ("checks:\n  - id: a\n    question: q\n  - id: a\n    question: r\n", "s.yaml:4: duplicate check id 'a' (first at line 2)"),
        ("checks:\n  - id: a\n    question: q\n    not_found: true\n    cites: x.md\n", "s.yaml:5: check 'a': `cites` cannot be combined with `not_found: true`"),
        ("checks:\n  - id: a\n    question: q\n    min_confidence: 2\n", "s.yaml:4: `min_confidence` must be a number from 0 to 1, got '2'"),
        ("checks:\n  - id: a\n    question: q\n    query_type: fuzzy\n", "s.yaml:4: `query_type` must be one of exact, conceptual, relational, file_discovery; got 'fuzzy'"),
        ("checks:\n  - id: a\n    question: q\n    not_found: maybe\n", "s.yaml:4: `not_found` must be true or false"),
        ("checks:\n  - id: a\n    question: ''\n", "s.yaml:3: `question` must be a non-empty text"),
        ("checks:\n  - id: a b\n    question: q\n", "s.yaml:2: check id 'a b' must be letters, digits, '.', '_' or '-' (≤ 100 chars)"),
        ("- id: a\n  question: q\n", "s.yaml:1: the spec must be a mapping with a `checks:` list, not a bare list"),
        ("version: 1\n", "s.yaml:1: the spec has no `checks:` list"),
        ("checks: []\n", "s.yaml:1: `checks:` must be a non-empty list of checks"),
        ("", "s.yaml:1: the spec is empty"),
        ("version: 2\nchecks: []\n", "s.yaml:1: unsupported spec version '2'"),
        ("checks:\n  - id: a\n    question: q\n    question: r\n", "s.yaml:4: check: duplicate key 'question'"),
    ],
)
def test_bad_spec_names_line_and_reason(text: str, expected: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(text, "s.yaml")
    assert info.value.message == expected
    assert info.value.exit_code == ExitCode.USAGE


def test_unknown_key_suggests_the_right_one() -> None:
    with pytest.raises(SpecError) as info:
        parse_spec("checks:\n  - id: a\n    question: q\n    cite: a.md\n", "s.yaml")
    assert info.value.hint == "did you mean 'cites'?"
    assert info.value.line == 4


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(tmp_path / "nope.yaml", display="nope.yaml")
    assert info.value.message == "nope.yaml: spec file not found"


def test_sample_spec_is_valid() -> None:
    spec = load_spec(SAMPLE_KB / "kb-checks.yaml")
    assert len(spec.checks) >= 15
    assert sum(c.not_found for c in spec.checks) >= 3
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in c.question) for c in spec.checks) >= 2


def test_an_invalid_glob_is_a_spec_error_with_its_line() -> None:
    text = "version: 1\nchecks:\n  - id: a\n    question: where is the TTL?\n    cites:\n      - reference/*.md\n      - 'docs\\'\n"
    with pytest.raises(SpecError, match=r"<spec>:7: `cites`: not a valid path glob"):
        parse_spec(text)
    with pytest.raises(SpecError, match=r"<spec>:5: `paths`: not a valid path glob"):
        parse_spec("version: 1\nchecks:\n  - id: a\n    question: q\n    paths: 'docs\\'\n")
