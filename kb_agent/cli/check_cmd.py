"""`kb check SPEC`: ask a YAML spec's questions and fail (exit 1) when the docs stop answering them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer

from kb_agent.cli import app
from kb_agent.cli._common import KbOption, complete_format, err_console, load_settings, refuse_output, write_report

if TYPE_CHECKING:
    from kb_agent.render.report import Format
    from kb_agent.checks.run import CheckResult

DEFAULT_SPEC = "kb-checks.yaml"


@app.command("check")
def check_command(
    spec: Annotated[Optional[Path], typer.Argument(metavar="SPEC", help=f"The YAML check spec (default: {DEFAULT_SPEC} in the KB root).", show_default=False)] = None,
    kb: KbOption = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", autocompletion=complete_format, help="human | json | junit | github (workflow annotations).")] = "human",
    index: Annotated[bool, typer.Option("--index", help="Bring the index up to date first instead of exiting 3 when it is stale.")] = False,
    only: Annotated[Optional[list[str]], typer.Option("--only", metavar="ID", help="Run only the check with this id (repeatable).")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="FILE", help="Write the report to FILE; the human summary still goes to stdout.", show_default=False)] = None,
    timings: Annotated[bool, typer.Option("--timings", help="Include durations (the report is then no longer byte-for-byte repeatable).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="human: show answers and citations of passing checks too.")] = False,
) -> None:
    """Check that the KB still answers a spec's questions, citing the right files (exit 0 pass, 1 fail, 2 bad spec, 3 stale index)."""
    from kb_agent.render.report import FORMATS, display_path, render_run
    from kb_agent.checks.run import ensure_fresh_index, run_checks
    from kb_agent.checks.spec import load_spec
    from kb_agent.errors import ExitCode, UsageError

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", hint=f"choose one of: {', '.join(FORMATS)}")
    settings = load_settings(kb)
    root = settings.kb_root()
    spec_path = spec if spec is not None else root / DEFAULT_SPEC
    if output is not None:
        refuse_output(output, root=root, spec=spec_path)
    checks = load_spec(spec_path, display=display_path(spec_path))
    ensure_fresh_index(settings, reindex=index)
    con = err_console()
    if con.is_terminal:  # progress on stderr never touches the report on stdout
        total = len(only) if only else len(checks.checks)
        with con.status("checking…") as status:
            done = [0]

            def on_result(_r: CheckResult) -> None:
                done[0] += 1
                status.update(f"checking {done[0]}/{total}")

            run = run_checks(settings, checks, only=tuple(only or ()), on_result=on_result)
    else:  # CI logs: a plain line every KB_PROGRESS_INTERVAL seconds
        from kb_agent.render.progress import ProgressLines

        total = len(only) if only else len(checks.checks)
        finished = [0]

        def count(_r: CheckResult) -> None:
            finished[0] += 1

        with ProgressLines(con, "check", lambda: f"{finished[0]}/{total} checks done", interval=settings.progress_interval):
            run = run_checks(settings, checks, only=tuple(only or ()), on_result=count)
    if run.notices:
        from kb_agent.render.safe import safe_markup

        for note in run.notices:  # e.g. vectors unavailable on a read-only KB: the run was lexical only
            err_console().print(f"[yellow]note:[/] {safe_markup(note, one_line=True)}", highlight=False, soft_wrap=True)
    prefix = display_path(root)
    text = render_run(run, cast("Format", fmt), kb_prefix=prefix, timings=timings, verbose=verbose)
    if output is not None:
        write_report(output, text, root=root, spec=spec_path)
        text = render_run(run, "human", kb_prefix=prefix, timings=timings, verbose=verbose)
    typer.echo(text, nl=False)
    if not run.ok:
        raise typer.Exit(int(ExitCode.NOT_FOUND))
