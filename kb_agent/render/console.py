"""The two consoles every front end shares: results on stdout, progress and messages on stderr."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@lru_cache(maxsize=1)
def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


@lru_cache(maxsize=1)
def out_console() -> Console:
    from rich.console import Console

    return Console()


def print_error(console: Console, message: str, hint: str | None = None) -> None:
    """One `error:` line (and a `hint:` line) on `console`, the text escaped."""
    from kb_agent.render.safe import safe_markup

    console.print(f"[bold red]error:[/] {safe_markup(message)}", highlight=False, soft_wrap=True)
    if hint:
        console.print(f"[dim]hint: {safe_markup(hint)}[/]", highlight=False, soft_wrap=True)
