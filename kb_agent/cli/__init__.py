"""The `kb` command line: one typer app, one error boundary, commands registered from sibling modules.

Only typer (and rich, for output) is imported at start-up; each command imports the heavy parts it needs.
Shell completion is typer's (`kb --install-completion`, `kb --show-completion`).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import typer
import typer.core

# typer 0.29 vendors click as typer._click; its exception classes are the ones raised here
from typer._click.core import Context
from typer._click.exceptions import ClickException

from kb_agent import __version__
from kb_agent.cli._usage import KbCommand
from kb_agent.errors import ExitCode, KbError


class KbGroup(typer.core.TyperGroup):
    """Maps errors to one-line messages and exit codes for every command (STYLE 12)."""

    def make_context(self, info_name: str | None, args: list[str], parent: Context | None = None, **extra: Any) -> Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except ClickException as e:  # e.g. `kb --wat`: an option of kb itself
            raise _usage_exit(e) from None

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        from kb_agent.cli._common import err_console

        args = ctx._protected_args  # the command's name, before click consumes it
        command = f"kb {args[0]}" if args and args[0] in self.commands else "kb"
        try:
            return super().invoke(ctx)
        except KbError as e:
            if _debug_requested():
                raise
            err_console().print(f"[bold red]error:[/] {_escape(e.message)}", highlight=False, soft_wrap=True)
            if e.hint:
                err_console().print(f"[dim]hint: {_escape(e.hint)}[/]", highlight=False, soft_wrap=True)
            raise typer.Exit(int(e.exit_code)) from None
        except (KeyboardInterrupt, typer.Abort):
            err_console().print("[yellow]interrupted[/]")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except ClickException as e:  # a command's arguments did not parse: unknown option, bad or missing value
            raise _usage_exit(e, command) from None
        except typer.Exit:
            raise
        except BrokenPipeError:
            raise typer.Exit(0) from None
        except Exception as e:  # the boundary: anything else is a bug
            if _debug_requested():
                raise
            err_console().print(f"[bold red]unexpected error:[/] {_escape(type(e).__name__)}: {_escape(str(e))}", highlight=False)
            err_console().print("[dim]hint: rerun with --debug for the traceback, and please report it[/]")
            raise typer.Exit(int(ExitCode.USAGE)) from None


def _usage_exit(e: ClickException, command: str = "kb") -> typer.Exit | ClickException:
    """Print a parse error as `error:` and `hint:` lines; the help screen of `kb` alone passes through."""
    from typer._click.exceptions import NoArgsIsHelpError

    from kb_agent.cli._common import err_console
    from kb_agent.cli._usage import describe_usage_error

    if isinstance(e, NoArgsIsHelpError):
        return e
    message, hint = describe_usage_error(e, command)
    err_console().print(f"[bold red]error:[/] {_escape(message)}", highlight=False, soft_wrap=True)
    err_console().print(f"[dim]hint: {_escape(hint)}[/]", highlight=False, soft_wrap=True)
    return typer.Exit(int(ExitCode.USAGE))


def _escape(text: str) -> str:
    from kb_agent.render.safe import safe_markup

    return safe_markup(text)


_DEBUG = {"on": False}


def _debug_requested() -> bool:
    return _DEBUG["on"]


app = typer.Typer(
    cls=KbGroup,
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion; cheap: the script is made only when asked
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="kb — ask your markdown knowledge base; every answer cites file and lines.",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kb {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks and debug logs."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    _DEBUG["on"] = debug
    if debug:
        import logging  # only here: `kb --help` need not load it

        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")


def _register() -> None:
    # importing a command module registers its commands on `app`; these imports are light
    from kb_agent.cli import index_cmd, search_cmd, status_cmd  # noqa: F401
    from kb_agent.cli import trust_cmd  # noqa: F401
    for optional in ("ask_cmd", "chat_cmd", "check_cmd", "graph_cmd", "links_cmd", "mcp_cmd"):
        try:
            __import__(f"kb_agent.cli.{optional}")
        except ModuleNotFoundError as e:
            if e.name != f"kb_agent.cli.{optional}":
                raise
    for info in app.registered_commands:  # every command shows metavars and reports usage errors alike
        if info.cls in (None, typer.core.TyperCommand):
            info.cls = KbCommand


_register()


def main() -> None:
    """Console-script entry point."""
    # pydantic looks for plug-ins through every installed package's entry points the first time a
    # model is built (~20 ms of each start); kb uses none. Set the variable yourself to decide otherwise.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(int(ExitCode.INTERRUPTED))
