"""`kb index`: build or update the index; `--check` for CI (exit 3 when stale)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, err_console, load_settings

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
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("files · {task.fields[chunks]} chunks embedded · {task.fields[rate]}"),
        TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(), console=err_console(), transient=True,
    ) as bar:
        task = bar.add_task("indexing", total=None, chunks=0, rate="")

        def on_progress(p: IndexProgress) -> None:
            if p.phase == "scan":
                bar.update(task, description="scanning", total=p.files_total, completed=0)
                return
            elapsed = bar.tasks[0].elapsed or 0.0
            rate = f"{p.chunks_done / elapsed:.1f} chunks/s" if elapsed > 0 and p.chunks_done else ""
            bar.update(task, description="indexing", total=p.files_total, completed=p.files_done, chunks=p.chunks_done, rate=rate)

        return build_index(settings, rebuild=rebuild, wait_s=wait, on_progress=on_progress)  # type: ignore[arg-type]


def report_dict(report: IndexReport) -> dict[str, object]:
    return {
        "root": report.root,
        "checked_only": report.checked_only,
        "stale": report.stale,
        "indexed": list(report.indexed),
        "updated": list(report.updated),
        "unchanged": report.unchanged,
        "removed": list(report.removed),
        "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
        "chunks_total": report.chunks_total,
        "chunks_embedded": report.chunks_embedded,
        "duration_s": round(report.duration_s, 3),
    }


def _emit(report: IndexReport, json_out: bool) -> None:
    if json_out:
        typer.echo(json.dumps(report_dict(report), ensure_ascii=False, indent=2))
        return
    from rich.markup import escape

    con = err_console()
    if report.checked_only:
        if not report.stale:
            con.print(f"[green]index is fresh[/] ({report.unchanged} files)")
        for label, paths in (("new", report.indexed), ("changed", report.updated), ("deleted", report.removed)):
            for p in paths:
                typer.echo(f"{label}\t{p}")
        if report.stale:
            con.print(f"[yellow]index is stale[/]: {len(report.indexed)} new, {len(report.updated)} changed, {len(report.removed)} deleted — run `kb index`")
        return
    con.print(
        f"[bold green]indexed[/] {len(report.indexed)} new · {len(report.updated)} updated · {report.unchanged} unchanged · "
        f"{len(report.removed)} removed · {len(report.skipped)} skipped — {report.chunks_total} chunks "
        f"({report.chunks_embedded} embedded) in {report.duration_s:.1f} s",
        highlight=False,
    )
    for s in report.skipped:
        con.print(f"  [yellow]skipped[/] {escape(s.path)}: {escape(s.reason)}", highlight=False)
