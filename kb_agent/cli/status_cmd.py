"""`kb status`: index freshness, counts, fingerprint, embedding provider, vector store, ripgrep."""

from __future__ import annotations

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, load_settings, out_console


@app.command("status")
def status_command(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Show whether the index is fresh and what it was built with."""
    from kb_agent.status import collect_status

    settings = load_settings(kb)
    st = collect_status(settings)
    if json_out:
        from kb_agent.render.json import dumps

        typer.echo(dumps(st))
        return
    from kb_agent.render.status import status_table

    out_console().print(status_table(st))
