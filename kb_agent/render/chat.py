"""`kb chat` output: banner, sources, cited lines, the standalone question of /trace, thread lists.

Values arrive as plain fields (chat sits above render); every string from a document, a file name,
a model or the user passes through `safe_text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kb_agent.render.safe import safe_markup

if TYPE_CHECKING:
    from rich.console import Console

# /sources shows the start of each citation's quote; /threads the start of each thread's last question
SOURCE_QUOTE_CHARS = 100
THREAD_QUESTION_CHARS = 60
# how the follow-up condenser produced the standalone question (chat/condense.py `Condensed.method`)
CONDENSE_METHODS = {"none": "already standalone", "rules": "rewritten offline", "model": "rewritten by the model"}


def render_banner(err: Console, *, thread: str, turns: int, model: str | None, interactive: bool) -> None:
    """The first line of a chat: thread (new or resumed), model, how to get help and leave."""
    state = f"resumed, {turns} turn{'s' if turns != 1 else ''}" if turns else "new"
    if interactive:
        shown = "offline (no chat model)" if model is None else f"model {safe_markup(model, one_line=True)}"
        err.print(f"[bold]kb chat[/] · thread [cyan]{safe_markup(thread, one_line=True)}[/] ({state}) · {shown} · /help · Ctrl-D to leave", highlight=False)
    else:
        err.print(f"kb chat · thread {safe_markup(thread, one_line=True)} ({state})", highlight=False)


def citation_location(c: Mapping[str, Any]) -> str:
    """`path:Lx-Ly` of a stored citation dict."""
    from kb_agent.types import format_location

    return str(format_location(str(c["path"]), int(c["start_line"]), int(c["end_line"])))


def render_sources(out: Console, citations: Sequence[Mapping[str, Any]], *, asked: bool) -> None:
    """/sources: one line per citation of the last answer, `[n] path:Lx-Ly  quote…`."""
    if not citations:
        out.print("no sources: " + ("the last answer cited none" if asked else "nothing asked in this thread yet"), highlight=False)
        return
    for c in citations:
        quote = " ".join(str(c.get("quote", "")).split())
        out.print(f"[{int(c['n'])}] {safe_markup(citation_location(c), one_line=True)}  [dim]{safe_markup(quote[:SOURCE_QUOTE_CHARS], one_line=True)}[/]",
                  highlight=False, soft_wrap=True)


def render_cited_lines(out: Console, location: str, lines: Iterable[tuple[int, str]], *, last_line: int) -> None:
    """/open: the cited file lines under their location, each with its number."""
    out.print(f"[bold]{safe_markup(location, one_line=True)}[/]", highlight=False)
    width = len(str(last_line))
    for n, text in lines:
        out.print(f"[dim]{n:>{width}} │[/] {safe_markup(text, one_line=True)}", highlight=False, soft_wrap=True)


def render_condensed(err: Console, *, original: str, question: str, method: str, note: str) -> None:
    """/trace, first two lines: what the user typed and the standalone question the agent answered."""
    err.print(f"[bold]question[/]    {safe_markup(original)}", highlight=False, soft_wrap=True)
    how = CONDENSE_METHODS.get(method, method)
    extra = "; " + safe_markup(note, one_line=True) if note else ""
    err.print(f"[bold]standalone[/]  {safe_markup(question)}  [dim]({how}{extra})[/]", highlight=False, soft_wrap=True)


def render_threads(out: Console, threads: Sequence[Any], *, current: str) -> None:
    """/threads: `* name  N turns  updated  last question` per thread; `*` marks the current one."""
    if not any(t.name == current for t in threads):
        out.print(f"* {safe_markup(current, one_line=True)}  (new, no turns yet)", highlight=False)
    for t in threads:
        mark = "*" if t.name == current else " "
        q = " ".join(str(t.last_question).split())[:THREAD_QUESTION_CHARS]
        out.print(f"{mark} {safe_markup(t.name, one_line=True)}  {t.turns} turn{'s' if t.turns != 1 else ''}  {t.updated}  [dim]{safe_markup(q, one_line=True)}[/]",
                  highlight=False)


def render_thread_notice(err: Console, what: str, thread: str, tail: str = "") -> None:
    """`new thread NAME`, `thread NAME (resumed, 3 turns)` and the like."""
    err.print(f"{what} [cyan]{safe_markup(thread, one_line=True)}[/]{tail}", highlight=False)
