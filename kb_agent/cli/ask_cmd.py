"""`kb ask`: answer one question from the knowledge base with verified, footnoted citations."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, complete_from, err_console, load_settings, out_console, parse_filters
from kb_agent.names import AUTO_TOOL, TOOL_NAMES

if TYPE_CHECKING:
    from kb_agent.agent.answer import Answer
    from kb_agent.settings import Settings

TOOL_CHOICES = (AUTO_TOOL, *TOOL_NAMES)


@app.command("ask")
def ask_command(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="The question, or `-` to read it from stdin. Inline `tag:X` and `path:GLOB` filter.", show_default=False)],
    kb: KbOption = None,
    json_out: JsonOption = False,
    events: Annotated[bool, typer.Option("--events", help="Print JSON-lines events (progress, message, references, metadata, error).")] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Show the timeline: graph node → plan step → tool, with durations (stderr).")] = False,
    tool: Annotated[str, typer.Option("--tool", "-t", metavar="TOOL", autocompletion=complete_from(TOOL_CHOICES), help="auto (route by question) | hybrid | grep | vector | files | related.")] = "auto",
    tag: Annotated[Optional[list[str]], typer.Option("--tag", metavar="TAG", help="Only files with this front-matter tag (repeatable).")] = None,
    path: Annotated[Optional[list[str]], typer.Option("--path", metavar="GLOB", help="Only files matching this glob (repeatable).")] = None,
    max_iterations: Annotated[Optional[int], typer.Option("--max-iterations", metavar="N", help="Cap on search-grade rounds (default KB_AGENT_MAX_ITERATIONS).", min=1, max=10)] = None,
    allow_general: Annotated[bool, typer.Option("--allow-general", help="If the KB lacks the answer, let the model answer from general knowledge (labelled).")] = False,
    require_fresh: Annotated[bool, typer.Option("--require-fresh", help="Exit 3 if files changed since the last `kb index`.")] = False,
) -> None:
    """Ask a question; the answer cites file and lines for every claim (exit 1 when the KB has no answer)."""
    from kb_agent.errors import ExitCode, KbError, UsageError

    if tool not in TOOL_CHOICES:
        raise UsageError(f"unknown tool {tool!r}", hint=f"choose one of: {', '.join(TOOL_CHOICES)}")
    if json_out and events:
        raise UsageError("--json and --events are alternatives", hint="pick one output format")
    if question == "-":
        question = sys.stdin.read()
    try:
        settings = load_settings(kb)
        answer = _run(question, settings, tool, parse_filters(tag, path), max_iterations, allow_general, require_fresh, events=events, human=not (json_out or events))
    except KbError as e:
        if events:
            _event({"type": "error", "message": e.message, "hint": e.hint, "exit_code": int(e.exit_code)})
        raise
    if json_out:
        from kb_agent.render.json import answer_dict, dumps

        typer.echo(dumps(answer_dict(answer)))
    elif events:
        from kb_agent.render.json import answer_events

        for payload in answer_events(answer):
            _event(payload)
    else:
        from kb_agent.render.answer import render_answer, render_trace

        render_answer(answer, out=out_console(), err=err_console(), root=settings.kb_root(), link_format=settings.link_format)
        if trace:
            render_trace(answer, err_console())
    if not answer.found:
        raise typer.Exit(int(ExitCode.NOT_FOUND))


def _run(question: str, settings: Settings, tool: str, filters: Any, max_iterations: int | None, allow_general: bool,
         require_fresh: bool, *, events: bool, human: bool) -> Answer:
    from kb_agent.agent.engine import Engine
    from kb_agent.render.live import LiveStatus

    if require_fresh:
        _check_fresh(settings)
    status = LiveStatus(err_console()) if human and err_console().is_terminal else None
    on_event: Callable[[dict[str, Any]], None] | None = _event if events else (status.on_event if status else None)
    lines = None
    if not events and not err_console().is_terminal:  # CI logs: the running step, a line every few seconds
        from kb_agent.render.live import ProgressEvent
        from kb_agent.render.progress import ProgressLines

        running = ["starting"]

        def follow(event: dict[str, Any]) -> None:
            if event.get("type") == "progress" and event.get("status") == "start":
                running[0] = ProgressEvent.from_dict(event).label()

        on_event = follow
        lines = ProgressLines(err_console(), "ask", lambda: running[0], interval=settings.progress_interval)
    try:
        with Engine(settings) as engine:
            if status:
                status.start()
            if lines:
                lines.start()
            answer = engine.answer_query(question, tool=tool, filters=filters, max_iterations=max_iterations,
                                         allow_general=allow_general, on_event=on_event)
            _print_notices(engine.notices)
            return answer
    finally:
        if status:
            status.stop()
        if lines:
            lines.stop()


def _print_notices(notices: list[str]) -> None:
    from kb_agent.render.safe import safe_markup

    for note in notices:
        err_console().print(f"[yellow]note:[/] {safe_markup(note, one_line=True)}", highlight=False, soft_wrap=True)


def _check_fresh(settings: Any) -> None:
    from kb_agent.errors import IndexStale
    from kb_agent.index.build import build_index

    report = build_index(settings, check=True)
    if report.stale:
        raise IndexStale(
            f"the index is stale: {len(report.indexed)} new, {len(report.updated)} changed, {len(report.removed)} deleted files",
            hint="run `kb index` first",
        )


def _event(payload: dict[str, Any]) -> None:
    from kb_agent.render.json import dumps

    if payload.get("type") == "token":
        return  # the verified message is sent whole; unverified tokens never reach a program
    typer.echo(dumps(payload, indent=None))
