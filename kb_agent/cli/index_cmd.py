"""`kb index`: build or update the index; `--check` for CI (exit 3 when stale)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, err_console, load_settings, out_console

if TYPE_CHECKING:
    from kb_agent.index.questions import QuestionWriter
    from kb_agent.index.watch import WatchUpdate
    from kb_agent.settings import Settings
    from kb_agent.types import IndexReport


@app.command("index")
def index_command(
    kb: KbOption = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the index and build it from scratch.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; list stale files and exit 3 if any (for CI).")] = False,
    wait: Annotated[float, typer.Option("--wait", metavar="SECONDS", help="Seconds to wait for another `kb index` to finish.", min=0)] = 0.0,
    json_out: JsonOption = False,
    watch: Annotated[bool, typer.Option("--watch", "-w", help="Stay running: re-index each file as it is saved, renamed or deleted (Ctrl-C stops, exit 130).")] = False,
    questions: Annotated[Optional[bool], typer.Option(  # noqa: UP007 - typer reads the annotation at run time
        "--questions/--no-questions", show_default=False,
        help="Have the chat model (KB_LLM_PROVIDER) write the questions each new or changed chunk answers, after the vectors (default: KB_INDEX_QUESTIONS).")] = None,
) -> None:
    """Index the knowledge base's markdown files (incremental; safe to interrupt and rerun)."""
    from kb_agent.errors import ExitCode, UsageError
    from kb_agent.index.build import build_index

    settings = load_settings(kb)
    writer = None if check else _question_writer(settings, questions)
    if watch:
        if check or rebuild:
            raise UsageError("--watch cannot be combined with --check or --rebuild", hint="run `kb index --rebuild` first, then `kb index --watch`")
        _watch(settings, json_out, writer)
        return
    if check:
        report = build_index(settings, check=True)
        _emit(report, json_out)
        if report.stale or report.chunks_pending:  # files changed, or an interrupted run left chunks without vectors
            raise typer.Exit(int(ExitCode.INDEX))
        return
    if not err_console().is_terminal:  # CI logs, files: a plain line every KB_PROGRESS_INTERVAL seconds
        report = _with_lines(settings, rebuild, wait, writer)
    elif not json_out:
        report = _with_bar(settings, rebuild, wait, writer)
    else:
        report = build_index(settings, rebuild=rebuild, wait_s=wait, questions=writer)
    _emit(report, json_out)


def _question_writer(settings: Settings, flag: bool | None) -> QuestionWriter | None:
    """The model behind the question phase, or None: off by flag or setting, or (setting only) no chat model.

    Raises:
        UsageError: `--questions` was passed but no chat model is configured.
    """
    wanted = settings.index_questions if flag is None else flag
    if not wanted:
        return None
    from kb_agent.llm.questions import question_writer

    writer = question_writer(settings)
    if writer is None:
        if flag:
            from kb_agent.errors import UsageError

            raise UsageError("--questions needs a chat model to write the questions", hint="set KB_LLM_PROVIDER (and its model settings); offline, the heading-derived questions are used")
        err_console().print("[yellow]note:[/] KB_INDEX_QUESTIONS is set but no chat model is configured (KB_LLM_PROVIDER=none): the heading-derived questions are used", highlight=False, soft_wrap=True)
    return writer


def _with_lines(settings: Settings, rebuild: bool, wait: float, writer: QuestionWriter | None) -> IndexReport:
    from kb_agent.index.build import build_index
    from kb_agent.render.progress import IndexTracker, ProgressLines

    tracker = IndexTracker()
    with ProgressLines(err_console(), "index", tracker.describe, interval=settings.progress_interval):
        return build_index(settings, rebuild=rebuild, wait_s=wait, on_progress=tracker.update, questions=writer)


def _with_bar(settings: Settings, rebuild: bool, wait: float, writer: QuestionWriter | None) -> IndexReport:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kb_agent.index.build import IndexProgress, build_index
    from kb_agent.render.progress import IndexTracker, duration

    tracker = IndexTracker()
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(), console=err_console(), transient=True,
    ) as bar:
        task = bar.add_task("indexing", total=None, detail="")

        def on_progress(p: IndexProgress) -> None:
            tracker.update(p)
            if p.phase == "scan":
                bar.update(task, description="scanning", total=p.files_total, completed=0)
                return
            if p.phase == "questions":  # search works in full meanwhile; the model writes each chunk's questions
                bar.update(task, description="questions", total=p.chunks_total, completed=p.chunks_done, detail=question_cost(p.model_calls, p.model_seconds))
                return
            rate, eta = tracker.rate(), tracker.eta()
            extra = []
            if rate is not None:
                extra.append(f"{rate:.1f} chunks/s")
            if eta is not None:
                extra.append(f"eta {duration(eta)}")
            if p.phase == "embed" and tracker.chunks_total:  # vectors stream in after the lexical index
                bar.update(task, description="embedding", total=tracker.chunks_total, completed=tracker.chunks_done,
                           detail=" · ".join(["vectors", *extra]))
            else:
                label = "files written" if p.phase == "lexical" else f"files · {tracker.chunks_done:,} chunks embedded"
                bar.update(task, description="indexing", total=p.files_total, completed=p.files_done, detail=" · ".join([label, *extra]))

        return build_index(settings, rebuild=rebuild, wait_s=wait, on_progress=on_progress, questions=writer)


def question_cost(calls: int, seconds: float) -> str:
    """`12 model calls · 3.4 s/call` — the question phase's cost so far, for the progress line."""
    if not calls:
        return "writing questions: waiting for the model"
    return f"{calls} model call{'s' if calls != 1 else ''} · {seconds / calls:.1f} s/call"


def _watch(settings: Settings, json_out: bool, writer: QuestionWriter | None = None) -> None:
    """Run the watcher in the foreground; one line per update on stderr (or one JSON object per
    update on stdout with --json). Ctrl-C ends it through the CLI's boundary: "interrupted", exit 130."""
    from kb_agent.index.watch import watch_index

    err = err_console()

    def on_update(u: WatchUpdate) -> None:
        if json_out:
            from kb_agent.render.json import dumps, index_report_dict

            doc = {"kind": u.kind, "paths": list(u.paths), "seconds": round(u.seconds, 3), "report": index_report_dict(u.report) if u.report else None,
                   "error": u.error.message if u.error else None}
            typer.echo(dumps(doc))
            return
        err.print(watch_line(u), markup=False, highlight=False, soft_wrap=True)

    def on_ready() -> None:
        if not json_out:
            from kb_agent.render.safe import safe_text

            err.print(f"watching {safe_text(str(settings.kb_root()), one_line=True)} for changes (Ctrl-C to stop)", markup=False, highlight=False, soft_wrap=True)

    watch_index(settings, on_update=on_update, on_ready=on_ready, questions=writer)


def watch_line(u: WatchUpdate) -> str:
    """`12:03:04 updated runbooks/rollback.md · 2 chunks embedded · 0.41 s` — one line per update."""
    import time

    from kb_agent.render.safe import safe_text

    stamp = time.strftime("%H:%M:%S")
    if u.error is not None or u.report is None:
        what = u.error.message if u.error is not None else "failed"
        return f"{stamp} error: {safe_text(what, one_line=True)} (retrying {len(u.paths)} path(s))"
    r = u.report
    parts = []
    for label, paths in (("new", r.indexed), ("updated", r.updated), ("removed", r.removed)):
        if paths:
            shown = ", ".join(safe_text(p, one_line=True) for p in paths[:3]) + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else "")
            parts.append(f"{label} {shown}")
    new_skips = [s for s in r.skipped if s.path in u.paths]
    parts += [f"skipped {safe_text(s.path, one_line=True)}: {safe_text(s.reason, one_line=True)}" for s in new_skips[:3]]
    if u.kind == "initial":
        parts = [f"initial sync: {len(r.indexed)} new · {len(r.updated)} updated · {r.unchanged} unchanged · {len(r.removed)} removed"]
    elif u.kind == "rescan":
        parts.insert(0, "rescan (ignore rules changed)")
    if r.chunks_embedded:
        parts.append(f"{r.chunks_embedded:,} chunk{'s' if r.chunks_embedded != 1 else ''} embedded")
    if r.chunks_pending:
        parts.append(f"{r.chunks_pending:,} waiting for vectors")
    q = r.questions
    if q is not None and (q.chunks_written or q.chunks_reused):
        parts.append(f"{q.chunks_written + q.chunks_reused:,} chunk{'s' if q.chunks_written + q.chunks_reused != 1 else ''} given questions ({q.model_calls} model call{'s' if q.model_calls != 1 else ''})")
    if q is not None and q.error is not None:
        parts.append(f"questions stopped: {safe_text(q.error, one_line=True)}")
    parts.append(f"{u.seconds:.2f} s")
    return f"{stamp} " + " · ".join(parts)


def _emit(report: IndexReport, json_out: bool) -> None:
    if json_out:
        from kb_agent.render.json import dumps, index_report_dict

        typer.echo(dumps(index_report_dict(report)))
        return
    from kb_agent.render.index import render_index_report

    render_index_report(report, out=out_console(), err=err_console())
