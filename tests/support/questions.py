"""Scripted replies to the question-pool prompt (kb_agent/index/questions.py): read the fenced excerpts
of a prompt and answer every one, one, or none of them."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from kb_agent.llm.base import Message

_EXCERPT = re.compile(r"<<<excerpt (\S+) ([0-9a-f]+)>>>\n(.*?)\n<<<end \1 \2>>>", re.S)


def excerpts(prompt: str | Sequence[Message]) -> list[tuple[str, str]]:
    """(label, fenced text) of every excerpt in the user message (or in a prompt's text)."""
    text = prompt if isinstance(prompt, str) else "\n".join(m.content for m in prompt if m.role == "user")
    return [(m.group(1), m.group(3)) for m in _EXCERPT.finditer(text)]


def subject(text: str) -> str:
    """A few words of the excerpt's first line of prose (after the `document:` line), for a question about it."""
    lines = [ln.strip("#*-> `") for ln in text.split("\n") if ln.strip() and not ln.startswith("document: ")]
    words = (lines[0] if lines else "this").split()[:6]
    return " ".join(words)


def default_questions(label: str, text: str) -> list[str]:
    return [f"What does the text say about {subject(text)}?", f"Question {label} about {subject(text)}?"]


def answer_all(prompt: str | Sequence[Message], make: Callable[[str, str], list[str]] = default_questions) -> str:
    """A valid reply: questions for every excerpt of the prompt."""
    return json.dumps({"excerpts": [{"id": label, "questions": make(label, text)} for label, text in excerpts(prompt)]})


def answer_some(prompt: str | Sequence[Message], keep: Callable[[str], bool], make: Callable[[str, str], list[str]] = default_questions) -> str:
    """A partial reply: only the excerpts whose label `keep` accepts."""
    return json.dumps({"excerpts": [{"id": label, "questions": make(label, text)} for label, text in excerpts(prompt) if keep(label)]})
