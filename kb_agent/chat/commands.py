"""The slash commands of `kb chat` (/help, /sources, /open, /trace, /tool, /tag, /path, /threads, /new,
/switch, /clear, /exit): each reads or changes the ChatSession and prints through render."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.chat.session import TOOLS, ChatSession
from kb_agent.render.chat import (
    citation_location,
    render_cited_lines,
    render_condensed,
    render_sources,
    render_thread_notice,
    render_threads,
)
from kb_agent.render.console import print_error
from kb_agent.render.safe import safe_markup

if TYPE_CHECKING:
    from rich.console import Console

# /open reads at most this much of a cited file: the cited lines are near the start of any real document
OPEN_MAX_BYTES = 8 * 1024 * 1024

HELP = """\
Ask a question; follow-ups ("and how do I roll that back?") use this thread's earlier turns.
End a line with \\ (or press Esc then Enter) to continue on the next line. Ctrl-C stops an answer;
Ctrl-D or /exit leaves. Inline tag:X and path:GLOB filter one question.

  /help               this help
  /sources            the citations of the last answer
  /open N             print the lines cited by [N]
  /trace              how the last answer was found (standalone question, route, tools, timings)
  /tool NAME          retrieval tool: auto | grep | vector | hybrid | files | related
  /tag [T]            only files with front-matter tag T (no T: clear)
  /path [GLOB]        only files matching GLOB (no GLOB: clear)
  /threads            list threads (* marks this one)
  /new [NAME]         start a new thread
  /switch NAME        resume (or create) thread NAME
  /clear              forget this thread's conversation and reset /tool, /tag, /path
  /exit               leave (also /quit, Ctrl-D)"""


def is_command(text: str) -> bool:
    """A slash command; `//…` is a question that starts with a slash."""
    return text.startswith("/") and not text.startswith("//")


class Commands:
    """Dispatches `/name arg` to a `cmd_name` method."""

    def __init__(self, session: ChatSession, *, out: Console, err: Console) -> None:
        self.session = session
        self.out = out
        self.err = err

    def run(self, line: str) -> bool:
        """Run a slash command; False means leave."""
        name, _, arg = line[1:].partition(" ")
        name, arg = name.lower(), arg.strip()
        handler: Callable[[str], bool | None] | None = getattr(self, f"cmd_{name}", None) if name.isidentifier() else None
        if handler is None:
            self.err.print(f"[yellow]unknown command[/] /{safe_markup(name, one_line=True)}", highlight=False)
            self.cmd_help("")
            return True
        return handler(arg) is not False

    def _error(self, message: str, hint: str | None = None) -> None:
        print_error(self.err, message, hint)

    def cmd_help(self, arg: str) -> None:
        self.out.print(HELP, highlight=False, markup=False, soft_wrap=True)

    def cmd_exit(self, arg: str) -> bool:
        return False

    cmd_quit = cmd_exit

    def cmd_sources(self, arg: str) -> None:
        last = self.session.last
        render_sources(self.out, (last or {}).get("citations") or [], asked=last is not None)

    def cmd_open(self, arg: str) -> None:
        cites = (self.session.last or {}).get("citations") or []
        if not arg.isdigit():
            self._error("usage: /open N", "N is a citation number from the last answer (see /sources)")
            return
        match = [c for c in cites if int(c["n"]) == int(arg)]
        if not match:
            self._error(f"no citation [{arg}] in the last answer", "see /sources")
            return
        c = match[0]
        root = self.session.root.resolve()
        path = (root / c["path"]).resolve()
        # is_file: a regular file only — a FIFO or device put in the document's place is never opened
        if not path.is_relative_to(root) or not path.is_file():
            self._error(f"cannot open {c['path']}", "the file moved or was deleted since the answer")
            return
        start, end = int(c["start_line"]), int(c["end_line"])
        lines = list(_read_lines(path, start, end))
        render_cited_lines(self.out, citation_location(c), lines, last_line=lines[-1][0] if lines else end)

    def cmd_trace(self, arg: str) -> None:
        from kb_agent.render.answer import render_trace

        answer, condensed = self.session.last_answer, self.session.last_condensed
        if answer is None or condensed is None:
            self.out.print("no trace: nothing asked in this session yet", highlight=False)
            return
        render_condensed(self.err, original=condensed.original, question=condensed.question, method=condensed.method, note=condensed.note)
        render_trace(answer, self.err)

    def cmd_tool(self, arg: str) -> None:
        if arg not in TOOLS:
            self._error(f"unknown tool {arg!r}" if arg else f"the tool is {self.session.tool}", f"choose one of: {', '.join(TOOLS)}")
            return
        self.session.tool = arg
        self.err.print(f"tool: {arg}", highlight=False)

    def cmd_tag(self, arg: str) -> None:
        self.session.tags = (arg,) if arg else ()
        self.err.print(f"tag filter: {safe_markup(arg, one_line=True)}" if arg else "tag filter cleared", highlight=False)

    def cmd_path(self, arg: str) -> None:
        self.session.paths = (arg,) if arg else ()
        self.err.print(f"path filter: {safe_markup(arg, one_line=True)}" if arg else "path filter cleared", highlight=False)

    def cmd_threads(self, arg: str) -> None:
        render_threads(self.out, self.session.store.threads(), current=self.session.thread)

    def cmd_new(self, arg: str) -> None:
        if arg and self.session.store.exists(arg):
            self._error(f"thread {arg} already exists", f"resume it with /switch {arg}")
            return
        self.session.switch(arg or None)
        render_thread_notice(self.err, "new thread", self.session.thread)

    def cmd_switch(self, arg: str) -> None:
        if not arg:
            self._error("usage: /switch NAME", "see /threads for the names")
            return
        resumed = self.session.switch(arg)
        turns = self.session.memory.total_turns
        render_thread_notice(self.err, "thread", self.session.thread, f" (resumed, {turns} turns)" if resumed else " (new)")

    def cmd_clear(self, arg: str) -> None:
        self.session.clear()
        render_thread_notice(self.err, "thread", self.session.thread, " cleared; tool, tag and path reset")


def _read_lines(path: Path, start: int, end: int) -> Iterator[tuple[int, str]]:
    """Lines `start`..`end` (1-based) of a text file, read no further than needed and at most OPEN_MAX_BYTES."""
    read = 0
    with path.open(encoding="utf-8", errors="replace", newline=None) as f:
        for n, line in enumerate(f, 1):
            read += len(line)
            if n > end or read > OPEN_MAX_BYTES:
                return
            if n >= start:
                yield n, line.rstrip("\n").removeprefix("\ufeff") if n == 1 else line.rstrip("\n")
