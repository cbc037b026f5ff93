"""The `kb chat` read-eval-print loop: prompt_toolkit line editing with a persistent history and
multi-line input on a terminal, plain line-by-line reading otherwise; slash commands; answers that
stream while the agent works and can be abandoned with Ctrl-C."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kb_agent.chat.session import TOOLS, ChatSession, TurnCancelled, TurnResult
from kb_agent.chat.threads import ChatStoreCorrupt, quarantine
from kb_agent.errors import ExitCode, KbError

if TYPE_CHECKING:
    from rich.console import Console

    from kb_agent.agent.execute import SearchTools
    from kb_agent.llm.base import ChatModel
    from kb_agent.settings import Settings

PROMPT = "kb> "
CONTINUATION = "... "
HISTORY_FILE = "chat_history"
# the agent refuses longer questions; saying so before it starts is friendlier for a stray paste
from kb_agent.agent.nodes import MAX_QUESTION_CHARS as MAX_INPUT_CHARS  # noqa: E402
# streamed model text shown live is cut to its last lines so the live region stays on one screen
LIVE_TAIL_LINES = 12

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


class Repl:
    """One interactive (or scripted) chat on a ChatSession."""

    def __init__(self, session: ChatSession, *, interactive: bool, stdin: TextIO | None = None, debug: bool = False) -> None:
        from kb_agent.cli._common import err_console, out_console

        self.session = session
        self.interactive = interactive
        self.stdin = stdin or sys.stdin
        self.debug = debug
        self.out: Console = out_console()
        self.err: Console = err_console()
        self._prompt: Any = None

    # ---- input ----

    def lines(self) -> Iterator[str]:
        """Each submitted input (multi-line inputs joined with newlines) until EOF or /exit."""
        return self._prompt_lines() if self.interactive else self._stream_lines()

    def _prompt_lines(self) -> Iterator[str]:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
        from prompt_toolkit.key_binding import KeyBindings

        bindings = KeyBindings()

        @bindings.add("enter")
        def _enter(event: Any) -> None:
            buf = event.current_buffer
            if buf.document.is_cursor_at_the_end and buf.text.endswith("\\"):
                buf.delete_before_cursor(1)
                buf.insert_text("\n")
            else:
                buf.validate_and_handle()

        @bindings.add("escape", "enter")
        def _newline(event: Any) -> None:
            event.current_buffer.insert_text("\n")

        history = self.session.root / ".kb" / HISTORY_FILE
        self._prompt = PromptSession(
            history=FileHistory(str(history)), multiline=True, key_bindings=bindings,
            prompt_continuation=lambda width, line_no, wrap: CONTINUATION,
        )
        while True:
            try:
                yield self._prompt.prompt(PROMPT)
            except KeyboardInterrupt:  # Ctrl-C at the prompt drops the line, like a shell
                continue
            except EOFError:
                return

    def _stream_lines(self) -> Iterator[str]:
        parts: list[str] = []
        while True:
            line = self.stdin.readline()
            if not line:
                if parts:
                    yield "\n".join(parts)
                return
            line = line.rstrip("\r\n")
            if line.endswith("\\"):
                parts.append(line[:-1])
                continue
            parts.append(line)
            yield "\n".join(parts)
            parts = []

    # ---- the loop ----

    def run(self) -> int:
        """Read and handle inputs until EOF or /exit; returns the exit code."""
        self._banner()
        for raw in self.lines():
            text = raw.strip()
            if not text:
                continue
            try:
                if text.startswith("/") and not text.startswith("//"):
                    if not self.command(text):
                        break
                else:
                    self.answer(text)
            except ChatStoreCorrupt as e:
                if not self.recover(e):
                    return int(ExitCode.USAGE)
            except KbError as e:
                self._error(e.message, e.hint)
            except KeyboardInterrupt:
                self.err.print("[yellow]cancelled[/]")
            except Exception as e:  # the REPL's boundary: report, keep the session
                if self.debug:
                    raise
                self._error(f"unexpected error: {type(e).__name__}: {e}", "rerun with --debug for the traceback, and please report it")
        return int(ExitCode.OK)

    def _banner(self) -> None:
        s = self.session
        mem = s.memory
        state = f"resumed, {mem.total_turns} turn{'s' if mem.total_turns != 1 else ''}" if mem.total_turns else "new"
        model = "offline (no chat model)" if getattr(s.model, "offline", True) else f"model {s.model.name}"
        if self.interactive:
            self.err.print(f"[bold]kb chat[/] · thread [cyan]{_esc(s.thread)}[/] ({state}) · {model} · /help · Ctrl-D to leave", highlight=False)
        else:
            self.err.print(f"kb chat · thread {_esc(s.thread)} ({state})", highlight=False)

    # ---- answering ----

    def answer(self, text: str) -> None:
        """Answer one question in the current thread, streaming progress; Ctrl-C abandons it."""
        if len(text) > MAX_INPUT_CHARS:
            self._error(f"that message is {len(text):,} characters; the limit is {MAX_INPUT_CHARS:,}",
                        "ask the question itself; kb searches the documents for the rest")
            return
        live = _LiveAnswer(self.err) if self.interactive and self.err.is_terminal else None
        pending = self.session.start_turn(text, on_event=live.on_event if live else None)
        if live:
            live.start()
        try:
            result = pending.wait()
        except (KeyboardInterrupt, TurnCancelled):
            pending.cancel()
            if live:
                live.stop()
            self.err.print("[yellow]cancelled[/] [dim]— the answer was abandoned; this turn is not remembered[/]")
            return
        finally:
            if live:
                live.stop()
        self.session.record(result)
        self._render(result)

    def _render(self, result: TurnResult) -> None:
        from kb_agent.cli import ask_cmd

        ask_cmd._ROOT["root"] = self.session.root  # footnotes become file links on a terminal
        ask_cmd._render(result.answer)
        self.out.print()

    # ---- slash commands ----

    def command(self, line: str) -> bool:
        """Run a slash command; False means leave."""
        name, _, arg = line[1:].partition(" ")
        name, arg = name.lower(), arg.strip()
        handler: Callable[[str], bool | None] | None = getattr(self, f"cmd_{name}", None) if name.isidentifier() else None
        if handler is None:
            self.err.print(f"[yellow]unknown command[/] /{_esc(name)}", highlight=False)
            self.cmd_help("")
            return True
        return handler(arg) is not False

    def cmd_help(self, arg: str) -> None:
        self.out.print(HELP, highlight=False, markup=False, soft_wrap=True)

    def cmd_exit(self, arg: str) -> bool:
        return False

    cmd_quit = cmd_exit

    def cmd_sources(self, arg: str) -> None:
        last = self.session.last
        cites = (last or {}).get("citations") or []
        if not cites:
            self.out.print("no sources: " + ("the last answer cited none" if last else "nothing asked in this thread yet"), highlight=False)
            return
        for c in cites:
            quote = " ".join(str(c.get("quote", "")).split())
            self.out.print(f"[{c['n']}] {_esc(_location(c))}  [dim]{_esc(quote[:100])}[/]", highlight=False, soft_wrap=True)

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
        if not path.is_relative_to(root) or not path.is_file():
            self._error(f"cannot open {c['path']}", "the file moved or was deleted since the answer")
            return
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        start, end = int(c["start_line"]), min(int(c["end_line"]), len(lines))
        self.out.print(f"[bold]{_esc(_location(c))}[/]", highlight=False)
        width = len(str(end))
        for n in range(start, end + 1):
            self.out.print(f"[dim]{n:>{width}} │[/] {_esc(lines[n - 1])}", highlight=False, soft_wrap=True)

    def cmd_trace(self, arg: str) -> None:
        from kb_agent.cli import ask_cmd

        answer, condensed = self.session.last_answer, self.session.last_condensed
        if answer is None or condensed is None:
            self.out.print("no trace: nothing asked in this session yet", highlight=False)
            return
        self.err.print(f"[bold]question[/]    {_esc(condensed.original)}", highlight=False, soft_wrap=True)
        how = {"none": "already standalone", "rules": "rewritten offline", "model": "rewritten by the model"}[condensed.method]
        self.err.print(f"[bold]standalone[/]  {_esc(condensed.question)}  [dim]({how}{'; ' + _esc(condensed.note) if condensed.note else ''})[/]",
                       highlight=False, soft_wrap=True)
        ask_cmd._render_trace(answer)

    def cmd_tool(self, arg: str) -> None:
        if arg not in TOOLS:
            self._error(f"unknown tool {arg!r}" if arg else f"the tool is {self.session.tool}", f"choose one of: {', '.join(TOOLS)}")
            return
        self.session.tool = arg
        self.err.print(f"tool: {arg}", highlight=False)

    def cmd_tag(self, arg: str) -> None:
        self.session.tags = (arg,) if arg else ()
        self.err.print(f"tag filter: {arg}" if arg else "tag filter cleared", highlight=False)

    def cmd_path(self, arg: str) -> None:
        self.session.paths = (arg,) if arg else ()
        self.err.print(f"path filter: {arg}" if arg else "path filter cleared", highlight=False)

    def cmd_threads(self, arg: str) -> None:
        threads = self.session.store.threads()
        current = self.session.thread
        if not any(t.name == current for t in threads):
            self.out.print(f"* {_esc(current)}  (new, no turns yet)", highlight=False)
        for t in threads:
            mark = "*" if t.name == current else " "
            q = " ".join(t.last_question.split())[:60]
            self.out.print(f"{mark} {_esc(t.name)}  {t.turns} turn{'s' if t.turns != 1 else ''}  {t.updated}  [dim]{_esc(q)}[/]", highlight=False)

    def cmd_new(self, arg: str) -> None:
        if arg and self.session.store.exists(arg):
            self._error(f"thread {arg} already exists", f"resume it with /switch {arg}")
            return
        self.session.switch(arg or None)
        self.err.print(f"new thread [cyan]{_esc(self.session.thread)}[/]", highlight=False)

    def cmd_switch(self, arg: str) -> None:
        if not arg:
            self._error("usage: /switch NAME", "see /threads for the names")
            return
        resumed = self.session.switch(arg)
        turns = self.session.memory.total_turns
        self.err.print(f"thread [cyan]{_esc(self.session.thread)}[/] " + (f"(resumed, {turns} turns)" if resumed else "(new)"), highlight=False)

    def cmd_clear(self, arg: str) -> None:
        self.session.clear()
        self.err.print(f"thread [cyan]{_esc(self.session.thread)}[/] cleared; tool, tag and path reset", highlight=False)

    # ---- trouble ----

    def recover(self, e: ChatStoreCorrupt) -> bool:
        """Offer to move a corrupt chat database aside and go on in a fresh thread; False to stop."""
        if not offer_fresh_store(e, self.session.store.path, interactive=self.interactive, ask=self._ask):
            return False
        self.session.reopen_store()
        self.err.print(f"new thread [cyan]{_esc(self.session.thread)}[/]", highlight=False)
        return True

    def _ask(self, question: str) -> bool:
        return ask_yes(question, self.err)

    def _error(self, message: str, hint: str | None = None) -> None:
        self.err.print(f"[bold red]error:[/] {_esc(message)}", highlight=False, soft_wrap=True)
        if hint:
            self.err.print(f"[dim]hint: {_esc(hint)}[/]", highlight=False, soft_wrap=True)


class _LiveAnswer:
    """A transient stderr region while the agent works: a spinner naming the step, then the model's
    streamed text; it disappears when the verified answer is printed."""

    def __init__(self, console: Console) -> None:
        from rich.spinner import Spinner

        self.console = console
        self._spinner = Spinner("dots", text="thinking…", style="dim")
        self._tokens: list[str] = []
        self._live: Any = None

    def start(self) -> None:
        from rich.live import Live

        self._live = Live(self._renderable(), console=self.console, transient=True, refresh_per_second=10)
        self._live.start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def on_event(self, event: dict[str, Any]) -> None:
        from rich.text import Text

        if event.get("type") == "token":
            self._tokens.append(str(event.get("text", "")))
            self._spinner.update(text=Text("writing…", style="dim"))
        elif event.get("type") == "progress" and event.get("status") == "start":
            step = f" {event.get('tool', '')}({str(event.get('input', ''))[:40]!r})" if "step" in event else ""
            self._spinner.update(text=Text(f"{event.get('node', '')}{step}…", style="dim"))
        if self._live is not None:
            self._live.update(self._renderable())

    def _renderable(self) -> Any:
        from rich.console import Group
        from rich.text import Text

        if not self._tokens:
            return self._spinner
        tail = "".join(self._tokens).splitlines()[-LIVE_TAIL_LINES:]
        return Group(Text("\n".join(tail)), self._spinner)


def ask_yes(question: str, console: Console) -> bool:
    """A [Y/n] question on the terminal (Enter means yes; EOF or Ctrl-C means no)."""
    console.print(f"{question} [Y/n] ", end="", highlight=False)
    try:
        reply = input()
    except (EOFError, KeyboardInterrupt):
        console.print()
        return False
    return reply.strip().lower() in ("", "y", "yes")


def offer_fresh_store(e: ChatStoreCorrupt, path: Path, *, interactive: bool, ask: Callable[[str], bool]) -> bool:
    """Report a corrupt chat database and move it aside (after asking, on a terminal); False when declined."""
    from kb_agent.cli._common import err_console

    err = err_console()
    err.print(f"[bold red]error:[/] {_esc(e.message)}", highlight=False, soft_wrap=True)
    if interactive and not ask("Move it aside and start a fresh thread?"):
        err.print(f"[dim]left {_esc(str(path))} as it is[/]", highlight=False)
        return False
    moved = quarantine(path)
    err.print(f"moved the unreadable chat database to {_esc(str(moved))}; starting fresh", highlight=False, soft_wrap=True)
    return True


def run_chat(settings: Settings, *, thread: str | None = None, tools: SearchTools | None = None, model: ChatModel | None = None,
             interactive: bool | None = None, debug: bool = False) -> tuple[int, bool]:
    """Open a chat session on the KB of `settings` and run the REPL until the user leaves.

    Args:
        settings: loaded settings.
        thread: thread to resume or create; a fresh one when None.
        tools: retrieval tools instead of the index (the test entry point injects slow ones).
        model: chat model instead of the configured one.
        interactive: force terminal (prompt_toolkit) or line mode; by default, whether stdin and stdout are terminals.
        debug: let unexpected errors raise.

    Returns:
        The exit code, and whether an abandoned turn is still running (the caller then exits hard).

    Raises:
        KbError: no index, bad settings, or a corrupt chat database the user chose to keep.
    """
    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    from kb_agent.cli._common import err_console

    root = settings.kb_root()
    try:
        session = ChatSession(settings, thread=thread, tools=tools, model=model)
    except ChatStoreCorrupt as e:
        from kb_agent.chat.threads import CHAT_DB

        if not offer_fresh_store(e, root / ".kb" / CHAT_DB, interactive=interactive, ask=lambda q: ask_yes(q, err_console())):
            raise ChatStoreCorrupt(e.message, hint="move it aside yourself, or answer yes to start fresh") from None
        session = ChatSession(settings, thread=thread, tools=tools, model=model)
    try:
        code = Repl(session, interactive=interactive, debug=debug).run()
    finally:
        busy = session.busy
        session.close()
    return code, busy


def _location(c: dict[str, Any]) -> str:
    from kb_agent.types import format_location

    return str(format_location(c["path"], int(c["start_line"]), int(c["end_line"])))


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)
