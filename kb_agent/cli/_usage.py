"""Usage lines and usage errors: metavars (`QUERY`, `SECONDS`, `GLOB`) instead of Python types, and every
parse error as one `error:` line with a `hint:` line (exit 2), never typer's or pydantic's raw text."""

from __future__ import annotations

import re
from typing import Any

import typer
import typer.core
from typer._click.core import Context
from typer._click.exceptions import (
    BadParameter,
    ClickException,
    MissingParameter,
    NoSuchOption,
    UsageError,
)

__all__ = ["KbCommand", "describe_usage_error"]


def _metavar(param: Any) -> str:
    """The word shown for a value: the declared metavar, else the parameter's name in capitals."""
    return str(param.metavar or (param.name or "value").upper())


class KbCommand(typer.core.TyperCommand):
    """A command whose usage line and help name values as words (`QUERY`, `--wait SECONDS`).

    typer shows a required argument as `{query}` and an option's value as its Python type
    (`<float range>`, `<list[str]>`); here every value gets its metavar (or its name in capitals).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.metavar is None and not getattr(param, "is_flag", False):
                param.metavar = (param.name or "value").upper()

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                continue
            word = _metavar(param) + ("..." if param.nargs != 1 else "")
            pieces.append(word if param.required else f"[{word}]")
        return pieces

    def format_options(self, ctx: Context, formatter: Any) -> None:
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                if not getattr(param, "hidden", False):
                    args.append((_metavar(param), getattr(param, "help", None) or ""))
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                opts.append((record[0], _RANGE.sub(_range_words, record[1])))
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


# typer writes a range as `1<=x<=200` / `x>=0`; people read `1 to 200` / `≥ 0`
_RANGE = re.compile(r"(?:(\S+?)<=?)?x(?:(<=?|>=?)(\S+?))?(?=[;\]])")


def _range_words(m: re.Match[str]) -> str:
    lo, op, bound = m.group(1), m.group(2), m.group(3)
    if lo is not None and bound is not None:
        return f"{lo} to {bound}"
    if op is not None and bound is not None:
        return f"{'≥' if op.startswith('>') else '≤'} {bound}"
    return m.group(0)


def _command_path(e: ClickException, fallback: str) -> str:
    """`kb search`: the program is always called `kb` here, whatever argv[0] was (`python -m kb_agent`)."""
    ctx = getattr(e, "ctx", None)
    if ctx is None:
        return fallback
    names: list[str] = []
    while ctx.parent is not None:
        names.insert(0, str(ctx.info_name))
        ctx = ctx.parent
    return " ".join(["kb", *names])


def _param_label(param: Any) -> str:
    if param.param_type_name == "argument":
        return _metavar(param)
    return "/".join(param.opts) if param.opts else _metavar(param)


def _expected(param: Any) -> str:
    """What a parameter takes, in words: `a whole number from 1 to 200`, `a number ≥ 0`."""
    desc = getattr(param, "type_descriptor", None)
    annotation = getattr(desc, "annotation", None)
    kinds: dict[Any, str] = {int: "a whole number", float: "a number", bool: "true or false"}
    kind = kinds.get(annotation, _metavar(param))
    lo, hi = getattr(param, "min", None), getattr(param, "max", None)
    if lo is not None and hi is not None:
        return f"{kind} from {lo} to {hi}"
    if lo is not None:
        return f"{kind} ≥ {lo}"
    if hi is not None:
        return f"{kind} ≤ {hi}"
    return kind


def _given(e: BadParameter) -> str | None:
    """The value the user typed, from the validation error typer raised (pydantic's, as `__cause__`)."""
    cause = e.__cause__
    errors = getattr(cause, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
        except Exception:  # noqa: BLE001 - only a nicer message is at stake
            return None
        if "input" in first:
            return str(first["input"])
    return None


def describe_usage_error(e: ClickException, command: str = "kb") -> tuple[str, str]:
    """One line saying what was wrong with the command line, and a hint.

    Args:
        e: the exception click/typer raised while parsing (unknown option or command, bad or
            missing value, extra argument).
        command: the command being parsed (`kb search`), for errors that carry no context.

    Returns:
        (message, hint), both single lines.
    """
    command = _command_path(e, command)
    see_help = f"see `{command} --help`"
    import difflib

    if isinstance(e, NoSuchOption):
        close = difflib.get_close_matches(e.option_name, list(e.possibilities or ()), n=1)
        hint = f"did you mean {close[0]}? ({see_help})" if close else see_help
        return f"unknown option {e.option_name}", hint
    if isinstance(e, MissingParameter) and e.param is not None:
        what = _param_label(e.param)
        usage = " ".join(p for p in [command, *e.ctx.command.collect_usage_pieces(e.ctx)] if p) if e.ctx else command
        if e.param.param_type_name == "argument":
            return f"missing {what}", f"usage: {usage} ({see_help})"
        return f"{what} needs a value", f"usage: {usage} ({see_help})"
    if isinstance(e, BadParameter) and e.param is not None:
        given = _given(e)
        shown = f" {given!r}" if given is not None else ""
        reason = f"expected {_expected(e.param)}" if given is not None else _first_line(e.message)
        return f"invalid value{shown} for {_param_label(e.param)}: {reason}", see_help
    message = _first_line(e.format_message() if not isinstance(e, UsageError) else e.message)
    if message.startswith("No such command"):
        name = message.split("'", 2)[1] if message.count("'") >= 2 else ""
        commands = sorted(e.ctx.command.list_commands(e.ctx)) if isinstance(e, UsageError) and e.ctx and hasattr(e.ctx.command, "list_commands") else []
        close = difflib.get_close_matches(name, commands, n=1)
        if not commands:
            return f"unknown command {name!r}", "see `kb --help`"
        hint = f"did you mean `kb {close[0]}`? " if close else ""
        return f"unknown command {name!r}", hint + f"commands: {', '.join(commands)}"
    return _lower_first(message.rstrip(".")), see_help


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0]


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text
