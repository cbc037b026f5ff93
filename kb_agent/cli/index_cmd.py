"""`kb index`: build or update the index; `--check` for CI (exit 3 when stale)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, err_console, load_settings, out_console

if TYPE_CHECKING:
    from kb_agent.types import IndexReport


@app.command("index")
def index_command(
    kb: KbOption = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the index and build it from scratch.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; list stale files and exit 3 if any (for CI).")] = False,
    wait: Annotated[float, typer.Option("--wait", help="Seconds to wait for another `kb index` to finish.", min=0)] = 0.0,
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


def _emit(report: IndexReport, json_out: bool) -> None:
    if json_out:
        from kb_agent.render.json import dumps, index_report_dict

        typer.echo(dumps(index_report_dict(report)))
        return
    from kb_agent.render.index import render_index_report

    render_index_report(report, out=out_console(), err=err_console())
