"""The one query cleaner: whole escape sequences out, one length limit, the same for search, ask, chat and checks."""

from __future__ import annotations

import pytest

from kb_agent.errors import InvalidQuery
from kb_agent.retrieval.query import MAX_QUESTION_CHARS, clean_query, clean_text


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("What is\x1b[31m cache.ttl_seconds?\x1b[0m", "What is cache.ttl_seconds?"),  # SGR colour, whole
        ("red\x1b[1;31mtext", "redtext"),  # an escape joins, it never separates
        ("a\x1b[?2004hb", "ab"),  # private CSI (bracketed paste)
        ("a\x9b31mb", "ab"),  # C1 CSI (U+009B)
        ("see \x1b]8;;http://x.test\x07link\x1b]8;;\x07 here", "see link here"),  # OSC 8 hyperlink, BEL-terminated
        ("title\x1b]0;evil\x1b\\ok", "titleok"),  # OSC ended by ST (ESC \)
        ("x\x1bPq#0;2;0;0;0\x1b\\y", "xy"),  # DCS (sixel)
        ("keep\x1b]no terminator here", "keepno terminator here"),  # unterminated: only the introducer goes
        ("a\x1b(Bb\x1b=c", "abc"),  # charset and keypad escapes
        ("cache\x00.ttl\x7fseconds", "cache .ttl seconds"),  # other controls separate words
        ("one\ttwo\r\nthree", "one two three"),
        ("zero\u200bwidth \u202eevil\u202c", "zerowidth evil"),  # invisible format characters are deleted
        ("cafe\u0301", "café"),  # NFC
        ("  lots   of\n\n space ", "lots of space"),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_no_escape_fragment_survives() -> None:
    for raw in ("\x1b[31m", "\x1b[38;5;196m", "\x1b]0;t\x07", "\x9b1m", "\x1b[2 q", "\x1b"):
        assert clean_text(f"word{raw} next") == "word next"
    for cut in ("\x1b[", "\x1b[3", "\x1b]0;title", "\x1b", "\x9b"):  # cut off: the introducer goes, the rest stays
        out = clean_text(f"word {cut}")
        assert out.startswith("word") and not any(c in out for c in "\x1b\x9b[]"), out
    # ESC [ n is a whole sequence to a terminal too (final byte `n`): it takes the letter, as the terminal would
    assert clean_text("a\x1b[next") == "aext"


def test_limits() -> None:
    assert clean_query("x" * MAX_QUESTION_CHARS) == "x" * MAX_QUESTION_CHARS
    with pytest.raises(InvalidQuery, match=f"{MAX_QUESTION_CHARS + 1:,} characters; the limit is {MAX_QUESTION_CHARS:,}"):
        clean_query("x" * (MAX_QUESTION_CHARS + 1))
    with pytest.raises(InvalidQuery, match="the query is empty"):
        clean_query(" \t\n\x07 \x1b[0m ")
    with pytest.raises(InvalidQuery, match="the question is empty"):
        clean_query("\u200b", noun="question")
    # the limit counts the cleaned text: colour codes around a long question do not push it over
    assert len(clean_query("\x1b[1m" + "y" * MAX_QUESTION_CHARS + "\x1b[0m")) == MAX_QUESTION_CHARS


def test_checks_use_the_same_cleaner_and_ceiling_as_ask() -> None:
    from kb_agent.checks.spec import SpecError, parse_spec

    def spec(question: str) -> str:
        return f'version: 1\nchecks:\n  - id: a\n    question: "{question}"\n'

    assert len(parse_spec(spec("q" * MAX_QUESTION_CHARS)).checks[0].question) == MAX_QUESTION_CHARS
    with pytest.raises(SpecError, match=f"<spec>:4: check 'a': `question` is {MAX_QUESTION_CHARS + 1:,} characters; the limit is {MAX_QUESTION_CHARS:,}"):
        parse_spec(spec("q" * (MAX_QUESTION_CHARS + 1)))
    assert parse_spec(spec("What is\\e[31m the TTL?")).checks[0].question == "What is the TTL?"  # YAML's \e is ESC
