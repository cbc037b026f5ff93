"""Shared CLI pieces: consoles, the --kb option, settings loading and filter parsing."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from kb_agent.settings import Settings

KbOption = Annotated[
    Optional[Path],
    typer.Option("--kb", help="Knowledge-base folder (default: $KB_ROOT, else the nearest folder with .kb/, else the current one).", show_default=False),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]


@lru_cache(maxsize=1)
def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


@lru_cache(maxsize=1)
def out_console() -> Console:
    from rich.console import Console

    return Console()


def load_settings(kb: Path | None, **overrides: object) -> Settings:
    """Settings from env/.env with CLI overrides; a bad value becomes a one-line ConfigError."""
    from pydantic import ValidationError

    from kb_agent.errors import ConfigError
    from kb_agent.settings import Settings

    values = {k: v for k, v in overrides.items() if v is not None}
    if kb is not None:
        values["root"] = kb
    try:
        return Settings(**values)  # type: ignore[arg-type]
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "setting"
        raise ConfigError(f"invalid setting KB_{field.upper()}: {first.get('msg')}", hint="see .env.example for valid values") from None


def parse_filters(tags: list[str] | None, paths: list[str] | None) -> object:
    from kb_agent.types import SearchFilters

    return SearchFilters(tags=tuple(tags or ()), path_globs=tuple(paths or ()))


def lingering_worker_threads() -> bool:
    """True when a plan-step worker (an abandoned or timed-out tool call) is still running.

    Python joins such threads at exit, which would hold the process until a stalled search
    returns; callers that already printed their result exit at once instead.
    """
    import threading

    return any(t.is_alive() and t.name.startswith("kb-step") for t in threading.enumerate())
