"""`kb trust`: let a folder's `.env` set every setting (programs, endpoints, keys, models), or revoke that."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from kb_agent.cli import app
from kb_agent.cli._common import out_console


@app.command("trust")
def trust_command(
    path: Annotated[Optional[Path], typer.Argument(metavar="PATH", help="The folder whose .env to trust (default: the current folder).", show_default=False)] = None,
    revoke: Annotated[bool, typer.Option("--revoke", help="Stop trusting the folder.")] = False,
    list_: Annotated[bool, typer.Option("--list", help="List the trusted folders.")] = False,
) -> None:
    """Trust a folder's .env with every setting, not only the harmless ones."""
    from rich.markup import escape

    from kb_agent.trust import config_dir, revoke_folder, trust_folder, trusted_folders

    console = out_console()
    if list_:
        for folder in trusted_folders():
            typer.echo(str(folder))
        return
    folder = path if path is not None else Path.cwd()
    if revoke:
        resolved, changed = revoke_folder(folder)
        console.print(escape(f"{'no longer trusted' if changed else 'was not trusted'}: {resolved}"), highlight=False)
        return
    resolved, changed = trust_folder(folder)
    where = config_dir() / "trusted_folders"
    console.print(escape(f"{'trusted' if changed else 'already trusted'}: {resolved} (recorded in {where})"), highlight=False)
