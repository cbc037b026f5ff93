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
    wait: Annotated[float, typer.Option("--wait", metavar="SECONDS", help="Seconds to wait for another `kb index` to finish.", min=0)] = 0.0,
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
    if not err_console().is_terminal:  # CI logs, files: a plain line every KB_PROGRESS_INTERVAL seconds
        report = _with_lines(settings, rebuild, wait)
    elif not json_out:
        report = _with_bar(settings, rebuild, wait)
    else:
        report = build_index(settings, rebuild=rebuild, wait_s=wait)
    _emit(report, json_out)


def _with_lines(settings: Settings, rebuild: bool, wait: float) -> IndexReport:
    from kb_agent.index.build import build_index
    from kb_agent.render.progress import IndexTracker, ProgressLines

    tracker = IndexTracker()
    with ProgressLines(err_console(), "index", tracker.describe, interval=settings.progress_interval):
        return build_index(settings, rebuild=rebuild, wait_s=wait, on_progress=tracker.update)


def _with_bar(settings: Settings, rebuild: bool, wait: float) -> IndexReport:
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

        return build_index(settings, rebuild=rebuild, wait_s=wait, on_progress=on_progress)


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
