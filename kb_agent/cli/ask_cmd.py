"""`kb ask`: answer one question from the knowledge base with verified, footnoted citations."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, err_console, load_settings, out_console, parse_filters
from kb_agent.names import AUTO_TOOL, TOOL_NAMES

if TYPE_CHECKING:
    from kb_agent.agent.answer import Answer

TOOL_CHOICES = (AUTO_TOOL, *TOOL_NAMES)


@app.command("ask")
def ask_command(
    question: Annotated[str, typer.Argument(help="The question, or `-` to read it from stdin. Inline `tag:X` and `path:GLOB` filter.", show_default=False)],
    kb: KbOption = None,
    json_out: JsonOption = False,
    events: Annotated[bool, typer.Option("--events", help="Print JSON-lines events (progress, message, references, metadata, error).")] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Show the timeline: graph node → plan step → tool, with durations (stderr).")] = False,
    tool: Annotated[str, typer.Option("--tool", "-t", help="auto (route by question) | hybrid | grep | vector | files | related.")] = "auto",
    tag: Annotated[Optional[list[str]], typer.Option("--tag", help="Only files with this front-matter tag (repeatable).")] = None,
    path: Annotated[Optional[list[str]], typer.Option("--path", help="Only files matching this glob (repeatable).")] = None,
    max_iterations: Annotated[Optional[int], typer.Option("--max-iterations", help="Cap on search-grade rounds (default KB_AGENT_MAX_ITERATIONS).", min=1, max=10)] = None,
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
        answer = _run(question, kb, tool, parse_filters(tag, path), max_iterations, allow_general, require_fresh, events=events, human=not (json_out or events))
    except KbError as e:
        if events:
            _event({"type": "error", "message": e.message, "hint": e.hint, "exit_code": int(e.exit_code)})
        raise
    if json_out:
        from kb_agent.agent.answer import answer_to_dict

        typer.echo(json.dumps(answer_to_dict(answer), ensure_ascii=False, indent=2))
    elif events:
        _emit_result_events(answer)
    else:
        _render(answer)
        if trace:
            _render_trace(answer)
    if not answer.found:
        raise typer.Exit(int(ExitCode.NOT_FOUND))


def _run(question: str, kb: Path | None, tool: str, filters: Any, max_iterations: int | None, allow_general: bool,
         require_fresh: bool, *, events: bool, human: bool) -> Answer:
    from kb_agent.agent.engine import Engine

    settings = load_settings(kb)
    _ROOT["root"] = settings.kb_root()
    if require_fresh:
        _check_fresh(settings)
    status = _Status() if human and err_console().is_terminal else None
    on_event = _event if events else (status.update if status else None)
    try:
        with Engine(settings) as engine:
            if status:
                status.start()
            return engine.answer_query(question, tool=tool, filters=filters, max_iterations=max_iterations,
                                       allow_general=allow_general, on_event=on_event)
    finally:
        if status:
            status.stop()


def _check_fresh(settings: Any) -> None:
    from kb_agent.errors import IndexStale
    from kb_agent.index.build import build_index

    report = build_index(settings, check=True)
    if report.stale:
        raise IndexStale(
            f"the index is stale: {len(report.indexed)} new, {len(report.updated)} changed, {len(report.removed)} deleted files",
            hint="run `kb index` first",
        )


class _Status:
    """The live stderr status line: current node and step; a token count while the model writes."""

    def __init__(self) -> None:
        self._status: Any = None
        self._tokens = 0

    def start(self) -> None:
        self._status = err_console().status("[dim]starting…[/]", spinner="dots")
        self._status.start()

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def update(self, event: dict[str, Any]) -> None:
        if self._status is None:
            return
        from rich.markup import escape

        if event.get("type") == "token":
            self._tokens += 1
            self._status.update(f"synthesize: the model is writing… ({self._tokens} tokens)")
            return
        node = event.get("node", "")
        if event.get("status") == "start":
            step = f" {event['step']} {event.get('tool', '')}({escape(str(event.get('input', ''))[:40])!r})" if "step" in event else ""
            it = f" [{event['iteration']}]" if event.get("iteration") else ""
            self._status.update(f"{node}{it}{step}…")


def _event(payload: dict[str, Any]) -> None:
    if payload.get("type") == "token":
        return  # the verified message is sent whole; unverified tokens never reach a program
    typer.echo(json.dumps(payload, ensure_ascii=False, default=str))


def _emit_result_events(answer: Answer) -> None:
    from kb_agent.agent.answer import answer_to_dict, citation_dict

    doc = answer_to_dict(answer)
    _event({"type": "message", "text": answer.text, "answer_source": answer.answer_source})
    _event({"type": "references", "citations": [citation_dict(c) for c in answer.citations]})
    meta = {k: v for k, v in doc.items() if k not in ("answer", "citations")}
    _event({"type": "metadata", **meta})


def _render(answer: Answer) -> None:
    from kb_agent.agent.citations import strip_footer

    con = out_console()
    if not con.is_terminal:
        typer.echo(answer.text)
    else:
        from rich.markdown import Markdown
        from rich.markup import escape

        con.print(Markdown(strip_footer(answer.text)))
        if answer.citations:
            con.print("[dim]---[/]")
            root = _root_for_links()
            for c in answer.citations:
                target = (root / c.path).resolve().as_uri() if root else None
                label = escape(c.location)
                con.print(f"[{c.n}] " + (f"[link={target}]{label}[/link]" if target else label), highlight=False, soft_wrap=True)
    if answer.answer_source == "llm_fallback":
        err_console().print(f"[yellow]note:[/] not from the knowledge base ({answer.fallback_reason})")
    elif answer.answer_source == "none":
        err_console().print(f"[dim]not found: {answer.fallback_reason}[/]")


# the KB root of this invocation, for file:// links in footnotes
_ROOT: dict[str, Path | None] = {"root": None}


def _root_for_links() -> Path | None:
    return _ROOT["root"]


def _render_trace(answer: Answer) -> None:
    con = err_console()
    from rich.markup import escape

    con.print("[bold]trace[/]")
    in_retrieve = False
    for ev in answer.trace:
        sub = ev.node in ("analyze_and_route", "plan", "tool_exec", "grade_evidence")
        if sub and not in_retrieve:
            con.print("  retrieve")
        in_retrieve = sub
        pad = "    " if sub else "  "
        it = f" [{ev.iteration}]" if sub else ""
        calls = f" · {ev.model_calls} model call{'s' if ev.model_calls != 1 else ''}" if ev.model_calls else ""
        con.print(f"{pad}{ev.node}{it}  {ev.duration_ms:.1f} ms{calls}  [dim]{escape(ev.detail)}[/]", highlight=False, soft_wrap=True)
        for r in ev.steps:
            con.print(f"{pad}  {r.step_id} {r.tool}({escape(r.tool_input)!r})  {r.status}  {r.duration_ms:.1f} ms  [dim]{escape(r.output_summary)}[/]"
                      + (f"  [red]{escape(r.error or '')}[/]" if r.error else ""), highlight=False, soft_wrap=True)
            for s in r.sub_steps:
                con.print(f"{pad}    {s.tool} {escape(s.input)!r}  {s.duration_ms:.1f} ms  {s.hits} hits" + (f"  [red]{escape(s.error)}[/]" if s.error else ""), highlight=False, soft_wrap=True)
        for note in ev.notes:
            con.print(f"{pad}  [yellow]note:[/] {escape(note)}", highlight=False, soft_wrap=True)
    con.print(f"  total  {answer.timings.get('total', 0.0):.1f} ms · {answer.model_calls} model calls · stop: {answer.stop_reason}", highlight=False, soft_wrap=True)
