"""`kb status`: index freshness, counts, fingerprint, embedding provider, vector store, ripgrep."""

from __future__ import annotations

import typer

from kb_agent.cli import app
from kb_agent.cli._common import JsonOption, KbOption, err_console, load_settings, out_console

# `index` states that leave nothing to search with: exit 3, like any command that needs the index
UNUSABLE = ("missing", "incompatible", "unreadable")


@app.command("status")
def status_command(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Show whether the index is fresh and what it was built with."""
    from kb_agent.errors import ExitCode
    from kb_agent.status import collect_status

    settings = load_settings(kb)
    st = collect_status(settings)
    if json_out:
        from kb_agent.render.json import dumps

        typer.echo(dumps(st))
    else:
        from kb_agent.render.status import render_status

        render_status(st, out_console())
    state = str(st.get("index", "")).split(":", 1)[0]
    if state in UNUSABLE:
        from kb_agent.render.console import print_error
        from kb_agent.render.safe import safe_text

        root = safe_text(str(st.get("kb_root", "")), one_line=True)
        if state == "missing":
            print_error(err_console(), f"no index in {root}", f"run `kb index --kb {root}` to build it")
        else:
            print_error(err_console(), f"the index in {root} cannot be used ({state})", "run `kb index --rebuild`")
        raise typer.Exit(int(ExitCode.INDEX))
