"""`kb links`: report broken relative links, missing anchors and broken [[wikilinks]] (exit 1 if any)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, cast

import typer

from kb_agent.cli import app
from kb_agent.cli._common import KbOption, complete_format, load_settings, refuse_output, write_report

if TYPE_CHECKING:
    from kb_agent.render.report import Format


@app.command("links")
def links_command(
    kb: KbOption = None,
    fmt: Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", autocompletion=complete_format, help="human | json | junit | github (workflow annotations).")] = "human",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="FILE", help="Write the report to FILE; the human summary still goes to stdout.", show_default=False)] = None,
    timings: Annotated[bool, typer.Option("--timings", help="Include the duration (the report is then no longer byte-for-byte repeatable).")] = False,
) -> None:
    """Check every relative link, heading anchor and [[wikilink]] in the KB's files (no index needed)."""
    from kb_agent.checks.links import check_links
    from kb_agent.render.report import FORMATS, display_path, render_links
    from kb_agent.errors import ExitCode, UsageError

    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", hint=f"choose one of: {', '.join(FORMATS)}")
    root = load_settings(kb).kb_root()
    if output is not None:
        refuse_output(output, root=root)
    report = check_links(root)
    prefix = display_path(root)
    text = render_links(report, cast("Format", fmt), kb_prefix=prefix, timings=timings)
    if output is not None:
        write_report(output, text, root=root)
        text = render_links(report, "human", kb_prefix=prefix, timings=timings)
    typer.echo(text, nl=False)
    if not report.ok:
        raise typer.Exit(int(ExitCode.NOT_FOUND))
