"""Query hygiene shared by every entry point: strip control characters, refuse empty or giant input."""

from __future__ import annotations

import re

from kb_agent.errors import InvalidQuery

MAX_QUERY_CHARS = 4000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def clean_query(text: str) -> str:
    """The query with control characters removed and whitespace collapsed.

    Raises:
        InvalidQuery: empty after cleaning, or longer than MAX_QUERY_CHARS.
    """
    cleaned = " ".join(_CONTROL.sub(" ", text).split())
    if not cleaned:
        raise InvalidQuery("the query is empty", hint='ask something, e.g. kb search "deploy rollback"')
    if len(cleaned) > MAX_QUERY_CHARS:
        raise InvalidQuery(f"the query is {len(cleaned):,} characters; the limit is {MAX_QUERY_CHARS:,}", hint="shorten it to the question itself")
    return cleaned
