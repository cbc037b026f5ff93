"""Test doubles: a scripted chat model and fake retrieval tools over real files in a temp KB."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb_agent.llm.base import Message, TokenSink
from kb_agent.types import Evidence, SearchFilters

Reply = str | BaseException | Callable[[Sequence[Message]], str]


def prompt_kind(messages: Sequence[Message]) -> str:
    """Which of the agent's prompts this is, from its system message."""
    system = messages[0].content if messages and messages[0].role == "system" else ""
    if system.startswith("You route questions"):
        return "route"
    if system.startswith("You grade retrieved passages"):
        return "grade"
    if system.startswith("You answer questions using only"):
        return "synth"
    if system.startswith("Rewrite the user's follow-up"):
        return "condense"
    if system.startswith("The user's documents do not answer"):
        return "general"
    if system.startswith("You write the questions"):
        return "questions"
    return "other"


@dataclass
class ScriptedModel:
    """A chat model that replays scripted replies per prompt kind and records every call.

    When a kind's script runs out, the last reply repeats. A reply may be an exception (raised) or a
    function of the messages.
    """

    script: dict[str, list[Reply]]
    name: str = "scripted"
    offline: bool = False
    calls: list[tuple[str, list[Message]]] = field(default_factory=list)

    def complete(self, messages: Sequence[Message], *, json_mode: bool = False, on_token: TokenSink | None = None) -> str:
        kind = prompt_kind(messages)
        self.calls.append((kind, list(messages)))
        replies = self.script.get(kind)
        if not replies:
            raise AssertionError(f"no scripted reply for a {kind!r} prompt")
        reply = replies.pop(0) if len(replies) > 1 else replies[0]
        if isinstance(reply, BaseException):
            raise reply
        text = reply(messages) if callable(reply) else reply
        if on_token is not None:
            for word in text.split(" "):
                on_token(word + " ")
        return text

    def kinds(self) -> list[str]:
        return [k for k, _ in self.calls]


def evidence_from(root: Path, path: str, start: int, end: int, *, score: float, tool: str, heading: tuple[str, ...] = ()) -> Evidence:
    """An Evidence whose text is exactly lines start..end of the file (so citations verify)."""
    lines = (root / path).read_text(encoding="utf-8").split("\n")
    return Evidence(path=path, start_line=start, end_line=end, text="\n".join(lines[start - 1 : end]), score=score, tool=tool, heading_path=heading)


@dataclass
class FakeTools:
    """Retrieval tools that answer from a table: tool → list of Evidence (or an exception / a delay)."""

    root: Path
    results: dict[str, list[Evidence]] = field(default_factory=dict)
    delays: dict[str, float] = field(default_factory=dict)
    errors: dict[str, BaseException] = field(default_factory=dict)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def search(self, tool: Any, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters()) -> list[Evidence]:
        self.calls.append((tool, query))
        if tool in self.delays:
            time.sleep(self.delays[tool])
        if tool in self.errors:
            raise self.errors[tool]
        return list(self.results.get(tool, []))[:k]

    def read_file(self, path: str, start: int = 1, end: int | None = None) -> Evidence:
        self.calls.append(("read_file", f"{path}:{start}-{end}"))
        lines = (self.root / path).read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        end = len(lines) if end is None else min(end, len(lines))
        return Evidence(path=path, start_line=start, end_line=end, text="\n".join(lines[start - 1 : end]), score=0.0, tool="read_file")
