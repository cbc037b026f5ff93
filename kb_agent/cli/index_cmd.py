"""`kb index`: build or update the index; `--check` for CI (exit 3 when stale)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, err_console, load_settings, out_console

if TYPE_CHECKING:
    from kb_agent.settings import Settings
    from kb_agent.types import IndexReport


@app.command("index")
def index_command(
    kb: KbOption = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the index and build it from scratch.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; list stale files and exit 3 if any (for CI).")] = False,
    wait: Annotated[float, typer.Option("--wait", metavar="SECONDS", help="Seconds to wait for another `kb index` to finish.", min=0)] = 0.0,
    json_out: JsonOption = False,
) -> None:
    """Index the knowledge base's markdown files (incremental; safe to interrupt and rerun)."""
    from kb_agent.errors import ExitCode
    from kb_agent.index.build import build_index

    settings = load_settings(kb)
    if check:
        report = build_index(settings, check=True)
        _emit(report, json_out)
        if report.stale:
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


def _emit(report: IndexReport, json_out: bool) -> None:
    if json_out:
        from kb_agent.render.json import dumps, index_report_dict

        typer.echo(dumps(index_report_dict(report)))
        return
    from kb_agent.render.index import render_index_report

    render_index_report(report, out=out_console(), err=err_console())
