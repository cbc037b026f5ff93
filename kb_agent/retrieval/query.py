"""The one query cleaner, used by search, ask, chat and checks: whole escape sequences and control
characters out, Unicode and whitespace normalised, one length limit."""

from __future__ import annotations

import re
import unicodedata

from kb_agent.errors import InvalidQuery

# A question, not a document: ~1,000 tokens leaves room for the evidence in a small local model's
# context, and longer input is almost always a pasted file (kb searches the documents for the rest).
MAX_QUESTION_CHARS = 4000

# Terminal escape sequences (ECMA-48), each removed whole so no `[31m` is left behind:
# CSI (ESC [ or U+009B, parameters, intermediates, one final byte); string sequences — OSC, DCS,
# SOS, PM, APC (ESC ] P X ^ _, or their C1 forms) — up to BEL or ST (ESC \ or U+009C); an
# unterminated one loses only its introducer, never the text after it; then any other ESC + byte
# (not ESC + space: a stray ESC before a word must not eat the word).
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[\]PX^_]|\x1b[\x21-\x2f]*[\x30-\x7e]"
)
# other C0/C1 controls and DEL separate words (a space); \t \r \n are spaces too
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# invisible format characters (zero-width, bidi overrides) are deleted: they join, never separate
_INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def clean_text(raw: str) -> str:
    """`raw` without escape sequences, control or invisible characters, NFC-normalised, single-spaced.

    It never raises; an empty result means nothing was left.
    """
    text = unicodedata.normalize("NFC", raw)
    text = _ESCAPES.sub("", text)
    text = _INVISIBLE.sub("", text)
    text = _CONTROL.sub(" ", text)
    return " ".join(text.split())


def clean_query(raw: str, *, noun: str = "query", example: str = 'kb search "deploy rollback"') -> str:
    """The cleaned query (see clean_text), refused when empty or over MAX_QUESTION_CHARS.

    Args:
        raw: the text as typed.
        noun: what the messages call it ("query", "question", "message").
        example: a command shown in the hint for an empty query.

    Raises:
        InvalidQuery: empty after cleaning, or longer than MAX_QUESTION_CHARS.
    """
    cleaned = clean_text(raw)
    if not cleaned:
        raise InvalidQuery(f"the {noun} is empty", hint=f"ask something, e.g. {example}")
    if len(cleaned) > MAX_QUESTION_CHARS:
        raise InvalidQuery(
            f"the {noun} is {len(cleaned):,} characters; the limit is {MAX_QUESTION_CHARS:,}",
            hint="shorten it to the question itself; kb searches the documents for the rest",
        )
    return cleaned
