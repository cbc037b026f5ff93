"""The `kb chat` read-eval-print loop: inputs from chat/input.py, slash commands from chat/commands.py,
answers that stream while the agent works (render) and can be abandoned with Ctrl-C."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from kb_agent.retrieval.query import MAX_QUESTION_CHARS
from kb_agent.chat.commands import Commands, is_command
from kb_agent.chat.input import ask_yes, read_inputs
from kb_agent.chat.recover import offer_fresh_store, open_session
from kb_agent.chat.session import ChatSession, TurnCancelled
from kb_agent.chat.threads import ChatStoreCorrupt
from kb_agent.errors import ExitCode, KbError
from kb_agent.render.answer import render_answer
from kb_agent.render.chat import render_banner, render_thread_notice
from kb_agent.render.console import err_console, out_console, print_error
from kb_agent.render.live import LiveStatus

if TYPE_CHECKING:
    from rich.console import Console

    from kb_agent.agent.execute import SearchTools
    from kb_agent.llm.base import ChatModel
    from kb_agent.settings import Settings

# the agent refuses longer questions; saying so before it starts is friendlier for a stray paste
MAX_INPUT_CHARS = MAX_QUESTION_CHARS
HISTORY_FILE = "chat_history"


class Repl:
    """One interactive (or scripted) chat on a ChatSession."""

    def __init__(self, session: ChatSession, *, interactive: bool, stdin: TextIO | None = None, debug: bool = False) -> None:
        self.session = session
        self.interactive = interactive
        self.stdin = stdin or sys.stdin
        self.debug = debug
        self.out: Console = out_console()
        self.err: Console = err_console()
        self.commands = Commands(session, out=self.out, err=self.err)

    def run(self) -> int:
        """Read and handle inputs until EOF or /exit; returns the exit code."""
        s = self.session
        model = None if getattr(s.model, "offline", True) else str(s.model.name)
        render_banner(self.err, thread=s.thread, turns=s.memory.total_turns, model=model, interactive=self.interactive)
        for raw in read_inputs(interactive=self.interactive, stdin=self.stdin, history=s.store.path.parent / HISTORY_FILE):
            text = raw.strip()
            if not text:
                continue
            try:
                if is_command(text):
                    if not self.commands.run(text):
                        break
                else:
                    self.answer(text)
            except ChatStoreCorrupt as e:
                if not self.recover(e):
                    return int(ExitCode.USAGE)
            except KbError as e:
                print_error(self.err, e.message, e.hint)
            except KeyboardInterrupt:
                self.err.print("[yellow]cancelled[/]")
            except Exception as e:  # the REPL's boundary: report, keep the session
                if self.debug:
                    raise
                print_error(self.err, f"unexpected error: {type(e).__name__}: {e}", "rerun with --debug for the traceback, and please report it")
        return int(ExitCode.OK)

    def answer(self, text: str) -> None:
        """Answer one question in the current thread, streaming progress; Ctrl-C abandons it."""
        if len(text) > MAX_INPUT_CHARS:
            print_error(self.err, f"that message is {len(text):,} characters; the limit is {MAX_INPUT_CHARS:,}",
                        "ask the question itself; kb searches the documents for the rest")
            return
        live = LiveStatus(self.err, stream=True) if self.interactive and self.err.is_terminal else None
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
        # footnotes become file links on a terminal
        render_answer(result.answer, out=self.out, err=self.err, root=self.session.root, link_format=self.session.settings.link_format)
        self.out.print()

    def recover(self, e: ChatStoreCorrupt) -> bool:
        """Offer to move a corrupt chat database aside and go on in a fresh thread; False to stop."""
        if not offer_fresh_store(e, self.session.store.path, interactive=self.interactive, ask=lambda q: ask_yes(q, self.err), err=self.err):
            return False
        self.session.reopen_store()
        render_thread_notice(self.err, "new thread", self.session.thread)
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
    err = err_console()
    session = open_session(settings, thread=thread, tools=tools, model=model, interactive=interactive,
                           ask=lambda q: ask_yes(q, err), err=err)
    if session.store.note:  # a read-only KB: say where the history goes instead of failing
        from kb_agent.render.safe import safe_markup

        err.print(f"[yellow]note:[/] {safe_markup(session.store.note, one_line=True)}", highlight=False, soft_wrap=True)
    try:
        code = Repl(session, interactive=interactive, debug=debug).run()
    finally:
        busy = session.busy
        session.close()
    return code, busy
