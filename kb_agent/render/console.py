"""The two consoles every front end shares: results on stdout, progress and messages on stderr.

On a terminal rich wraps to the window. Anywhere else (a pipe, a file, a CI log) nothing is wrapped:
a long line stays one line, so `| grep`, editors and log viewers see what a terminal would.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@lru_cache(maxsize=1)
def err_console() -> Console:
    return _console(stderr=True)


@lru_cache(maxsize=1)
def out_console() -> Console:
    return _console(stderr=False)


def _console(*, stderr: bool) -> Console:
    from rich.console import Console

    con = Console(stderr=stderr)
    if not con.is_terminal:
        con.soft_wrap = True  # no hard wrap at 80 columns when piped
    return con


def print_error(console: Console, message: str, hint: str | None = None) -> None:
    """One `error:` line (and a `hint:` line) on `console`, the text escaped."""
    from kb_agent.render.safe import safe_markup

    console.print(f"[bold red]error:[/] {safe_markup(message)}", highlight=False, soft_wrap=True)
    if hint:
        console.print(f"[dim]hint: {safe_markup(hint)}[/]", highlight=False, soft_wrap=True)
