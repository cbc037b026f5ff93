"""`kb status`: index freshness, counts, fingerprint, embedding provider, vector store, ripgrep."""

from __future__ import annotations

import json

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
        typer.echo(json.dumps(st, ensure_ascii=False, indent=2))
        return
    from rich.table import Table

    t = Table(show_header=False, box=None, pad_edge=False)
    t.add_column(style="bold")
    t.add_column()
    for key, value in st.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value) or "—"
        t.add_row(key.replace("_", " "), str(value))
    out_console().print(t)
