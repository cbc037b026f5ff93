"""Docs stay true: every command has a README section carrying its help text; the quick start is two commands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
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


def _readme_answers() -> dict[str, str]:
    """README's example `kb ask --kb sample_kb "…"` transcripts: question → the answer printed under it."""
    out: dict[str, str] = {}
    for block in re.findall(r"^````\n(.*?)^````$", README, re.M | re.S):
        for m in re.finditer(r'^\$ kb ask --kb sample_kb "([^"]+)"\n(.*?)(?=^\$ |\Z)', block, re.M | re.S):
            out[m.group(1)] = m.group(2).strip()
    return out


@pytest.mark.slow
def test_readme_example_answers_are_the_real_output(indexed_e5_kb: Path) -> None:
    """The answers README shows are what `kb ask` prints on sample_kb today (offline, the bundled model):
    a change that alters them must regenerate them."""
    import os
    import subprocess
    import sys

    examples = _readme_answers()
    assert len(examples) >= 2, examples
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    for question, shown in examples.items():
        proc = subprocess.run([sys.executable, "-m", "kb_agent", "ask", "--kb", str(indexed_e5_kb), question],
                              env=env, capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == shown, f"README's answer to {question!r} is stale; kb prints:\n{proc.stdout}"
