"""Docs stay true: every command has a README section carrying its help text; the quick start is two commands."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from kb_agent.cli import app

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _commands() -> dict[str, str]:
    group = typer.main.get_command(app)
    return {name: (cmd.help or "").strip().split("\n")[0] for name, cmd in group.commands.items()}  # type: ignore[attr-defined]


def test_every_command_is_documented_with_its_help_text() -> None:
    cmds = _commands()
    assert {"index", "search", "status"} <= set(cmds)
    for name, first_line in cmds.items():
        assert re.search(rf"^### `kb {name}\b", README, re.M), f"README has no section for kb {name}"
        assert first_line and first_line in README, f"README lacks the help text of kb {name}: {first_line!r}"


def test_quick_start_is_exactly_two_commands_and_ci_runs_the_test_one() -> None:
    block = README.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [ln for ln in block.strip().splitlines() if ln.strip()]
    assert len(lines) == 2
    test_cmd = lines[1].split("#")[0].strip()
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert test_cmd in ci
