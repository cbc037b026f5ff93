"""`kb index`: build or update the index; `--check` for CI (exit 3 when stale)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, err_console, load_settings, out_console

if TYPE_CHECKING:
    from kb_agent.index.watch import WatchUpdate
    from kb_agent.settings import Settings
    from kb_agent.types import IndexReport


@app.command("index")
def index_command(
    kb: KbOption = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the index and build it from scratch.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; list stale files and exit 3 if any (for CI).")] = False,
    wait: Annotated[float, typer.Option("--wait", help="Seconds to wait for another `kb index` to finish.", min=0)] = 0.0,
    json_out: JsonOption = False,
    watch: Annotated[bool, typer.Option("--watch", "-w", help="Stay running: re-index each file as it is saved, renamed or deleted (Ctrl-C stops, exit 130).")] = False,
) -> None:
    """Index the knowledge base's markdown files (incremental; safe to interrupt and rerun)."""
    from kb_agent.errors import ExitCode, UsageError
    from kb_agent.index.build import build_index

    settings = load_settings(kb)
    if watch:
        if check or rebuild:
            raise UsageError("--watch cannot be combined with --check or --rebuild", hint="run `kb index --rebuild` first, then `kb index --watch`")
        _watch(settings, json_out)
        return
    if check:
        report = build_index(settings, check=True)
        _emit(report, json_out)
        if report.stale or report.chunks_pending:  # files changed, or an interrupted run left chunks without vectors
            raise typer.Exit(int(ExitCode.INDEX))
        return
    show_bar = not json_out and err_console().is_terminal
    if show_bar:
        report = _with_progress(settings, rebuild, wait)
    else:
        report = build_index(settings, rebuild=rebuild, wait_s=wait)
    _emit(report, json_out)


def _with_progress(settings: object, rebuild: bool, wait: float) -> IndexReport:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from kb_agent.index.build import IndexProgress, build_index

    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[unit]} · {task.fields[chunks]} chunks embedded · {task.fields[rate]}"),
        TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(), console=err_console(), transient=True,
    ) as bar:
        task = bar.add_task("indexing", total=None, chunks=0, rate="", unit="files")

        def on_progress(p: IndexProgress) -> None:
            if p.phase == "scan":
                bar.update(task, description="scanning", total=p.files_total, completed=0)
                return
            if p.phase == "embed":  # the lexical index is committed: search works, vectors stream in
                if bar.tasks[0].description != "embedding":
                    bar.reset(task, description="embedding", total=p.chunks_total, completed=0, unit="chunks", chunks=0, rate="")
                elapsed = bar.tasks[0].elapsed or 0.0
                rate = f"{p.chunks_done / elapsed:.1f} chunks/s" if elapsed > 0 and p.chunks_done else ""
                bar.update(task, total=p.chunks_total, completed=p.chunks_done, chunks=p.chunks_done, rate=rate)
                return
            bar.update(task, description="indexing", total=p.files_total, completed=p.files_done, unit="files")

        return build_index(settings, rebuild=rebuild, wait_s=wait, on_progress=on_progress)  # type: ignore[arg-type]


def _watch(settings: Settings, json_out: bool) -> None:
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

    watch_index(settings, on_update=on_update, on_ready=on_ready)


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
    parts.append(f"{u.seconds:.2f} s")
    return f"{stamp} " + " · ".join(parts)


def _emit(report: IndexReport, json_out: bool) -> None:
    if json_out:
        from kb_agent.render.json import dumps, index_report_dict

        typer.echo(dumps(index_report_dict(report)))
        return
    from kb_agent.render.index import render_index_report

    render_index_report(report, out=out_console(), err=err_console())
