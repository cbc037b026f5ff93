"""Shared CLI pieces: the --kb option, settings loading, filter parsing and writing `-o` report files."""

from __future__ import annotations

from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from kb_agent.render.console import err_console, out_console

if TYPE_CHECKING:
    from kb_agent.settings import Settings

__all__ = ["JsonOption", "KbOption", "complete_format", "complete_from", "stdout_is_terminal", "err_console", "lingering_worker_threads", "load_settings", "out_console", "parse_filters", "refuse_output", "write_report"]

KbOption = Annotated[
    Optional[Path],
    typer.Option("--kb", metavar="PATH", help="Knowledge-base folder (default: $KB_ROOT, else the nearest folder with .kb/, else the current one).", show_default=False),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]


def complete_from(choices: tuple[str, ...]) -> Callable[[str], list[str]]:
    """A shell-completion callback offering the `choices` that start with what was typed."""

    def complete(incomplete: str) -> list[str]:
        return [c for c in choices if c.startswith(incomplete)]

    return complete


def complete_format(incomplete: str) -> list[str]:
    """Shell completion for `--format` of `kb check` and `kb links` (imports the report module only when asked)."""
    from kb_agent.render.report import FORMATS

    return [f for f in FORMATS if f.startswith(incomplete)]


def load_settings(kb: Path | None, **overrides: object) -> Settings:
    """Settings from env/.env with CLI overrides; a bad value becomes a one-line ConfigError."""
    from pydantic import ValidationError

    from kb_agent.errors import ConfigError
    from kb_agent.settings import Settings

    values = {k: v for k, v in overrides.items() if v is not None}
    if kb is not None:
        values["root"] = kb
    try:
        settings = Settings(**values)  # type: ignore[arg-type]
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "setting"
        raise ConfigError(f"invalid setting KB_{field.upper()}: {first.get('msg')}", hint="see .env.example for valid values") from None
    warn_ignored_settings(settings)
    return settings


_WARNED: set[str] = set()


def warn_ignored_settings(settings: Settings) -> None:
    """Say once per process, on stderr, which `.env` values the trust boundary ignored and how to opt in."""
    if not settings.ignored_settings:
        return
    from rich.markup import escape

    from kb_agent.trust import describe_ignored

    for line in describe_ignored(settings.ignored_settings):
        if line not in _WARNED:
            _WARNED.add(line)
            err_console().print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)


def stdout_is_terminal() -> bool:
    """Whether results go to a terminal, as rich decides it (FORCE_COLOR / TTY_COMPATIBLE count), without importing rich."""
    import os
    import sys

    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE") == "1":
        return True
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


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


def refuse_output(path: Path, *, root: Path, spec: Path | None = None) -> None:
    """Refuse a `-o FILE` target a report must not replace (checked before the work, and again on write).

    Refused: the spec file, any existing file inside the KB root (a report must never replace a
    document), and any existing path that is not a regular file (a FIFO would block, a device or a
    directory is not a report). A new file, or a regular file outside the KB, is fine.

    Raises:
        UsageError: the target is refused (exit 2).
    """
    from kb_agent.errors import UsageError
    from kb_agent.render.safe import safe_text

    shown = safe_text(str(path), one_line=True)
    target = path.resolve()
    if spec is not None and target == spec.resolve():
        raise UsageError(f"refusing to write the report over the spec file {shown}", hint="choose another -o FILE")
    if target.exists() and target.is_relative_to(root.resolve()):
        raise UsageError(f"refusing to write the report over {shown}: it is inside the knowledge base", hint="write the report outside the KB, or to a new file")
    if target.exists() and not target.is_file():
        raise UsageError(f"refusing to write the report to {shown}: not a regular file", hint="-o takes the path of a regular file")


def write_report(path: Path, text: str, *, root: Path, spec: Path | None = None) -> None:
    """Write a `-o FILE` report after `refuse_output`; the open never blocks and never follows into a non-regular file.

    Raises:
        UsageError: the target is refused or cannot be written.
    """
    import os
    import stat

    from kb_agent.errors import UsageError
    from kb_agent.render.safe import safe_text

    refuse_output(path, root=root, spec=spec)
    shown = safe_text(str(path), one_line=True)
    try:
        # O_NONBLOCK: a FIFO swapped in after the check fails or opens at once, never waits for a reader
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as e:
        raise UsageError(f"cannot write {shown}: {e.strerror or e}", hint="-o takes the path of a regular file") from None
    with os.fdopen(fd, "wb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"refusing to write the report to {shown}: not a regular file", hint="-o takes the path of a regular file")
        try:
            f.truncate(0)
            f.write(text.encode("utf-8"))
        except OSError as e:
            raise UsageError(f"cannot write {shown}: {e.strerror or e}") from None
