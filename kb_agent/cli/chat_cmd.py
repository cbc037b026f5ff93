"""`kb chat`: an interactive REPL over the knowledge base with persistent threads (docs/CHAT.md)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from kb_agent.cli import _debug_requested, app
from kb_agent.cli._common import KbOption, lingering_worker_threads, load_settings


@app.command("chat")
def chat_command(
    kb: KbOption = None,
    thread: Annotated[Optional[str], typer.Option("--thread", metavar="NAME", help="Resume (or create) this thread; a new one when omitted.", show_default=False)] = None,
) -> None:
    """Chat with the knowledge base: follow-up questions, threads kept in .kb/, slash commands (/help)."""
    from kb_agent.chat.repl import run_chat
    from kb_agent.chat.threads import check_thread_name

    if thread is not None:
        check_thread_name(thread)
    settings = load_settings(kb)
    code, busy = run_chat(settings, thread=thread, debug=_debug_requested())
    if busy or lingering_worker_threads():
        # an abandoned answer is still inside a tool call; its threads cannot be joined, so leave now
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if code:
        raise typer.Exit(code)
