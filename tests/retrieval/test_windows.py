"""Passage precision (retrieval/windows.py): a long section is cut to the window that answers, the
top hit points at those lines, hits carry focus lines, and `kb search` snippets show them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb_agent.index.build import build_index
from kb_agent.retrieval.tools import Retriever
from kb_agent.retrieval.windows import WINDOW_LINES, snap, spans
from tests.support.sample import hash_settings

FILLER = "\n".join(f"Paragraph {i} talks about general settings, defaults and the layout of the project." for i in range(30))
LONG_MD = f"""# Server guide

{FILLER}

- Start the development server with automatic reload:

`fastapi dev main.py --reload`

{FILLER}
"""
ONE_CHUNK_MD = """# Workers

The server runs one process by default.

To run several worker processes, pass `--workers 4` to the run command.

Each worker is a separate process with its own memory.
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("windows") / "kb"
    root.mkdir()
    (root / "server.md").write_text(LONG_MD, encoding="utf-8")
    (root / "workers.md").write_text(ONE_CHUNK_MD, encoding="utf-8")
    build_index(hash_settings(root))
    return root


def _answer_line(root: Path, path: str, needle: str) -> int:
    return next(i for i, ln in enumerate((root / path).read_text(encoding="utf-8").split("\n"), 1) if needle in ln)


@pytest.mark.parametrize("tool", ["hybrid", "vector"])
def test_top_hit_points_at_the_answering_lines(kb: Path, tool: str) -> None:
    target = _answer_line(kb, "server.md", "fastapi dev main.py")
    with Retriever(hash_settings(kb)) as r:
        hits = r.search(tool, "start the development server with reload", k=5)  # type: ignore[arg-type]
    top = next(h for h in hits if h.path == "server.md")
    assert top.end_line - top.start_line + 1 <= WINDOW_LINES + 12
    assert top.start_line <= target <= top.end_line
    assert top.focus is not None and top.focus[0] <= target + 1 and top.focus[1] >= target - 2


def test_short_hits_are_kept_whole_with_focus(kb: Path) -> None:
    with Retriever(hash_settings(kb)) as r:
        hits = r.grep("workers", k=5)
    top = hits[0]
    assert top.path == "workers.md" and top.start_line == 1
    line = _answer_line(kb, "workers.md", "--workers 4")
    assert top.focus is not None and top.focus[0] <= line <= top.focus[1]


def test_spans_and_snap() -> None:
    assert spans(1, 15) == [(1, 15)]
    assert spans(1, 45) == [(1, 20), (11, 30), (21, 40), (31, 45)]
    lines = {i: ("" if i in (5, 14) else f"line {i}") for i in range(1, 30)}
    assert snap(lines, 7, 13) == (6, 13)  # starts after the blank line, stops before the next one
    fenced = {1: "text", 2: "```", 3: "code", 4: "code", 5: "```", 6: "after"}
    assert snap(fenced, 1, 3)[1] == 5  # an open fence is followed to its end


def test_search_snippet_shows_the_matching_lines(kb: Path) -> None:
    from kb_agent.cli import app

    res = CliRunner().invoke(app, ["search", "--kb", str(kb), "--tool", "grep", "-k", "1", "several worker processes"],
                             env={"KB_EMBEDDING_PROVIDER": "hash", "COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "workers.md" in res.output and "Workers" in res.output  # location and breadcrumb
    snippet = [ln for ln in res.output.splitlines() if ln.startswith("    ")]
    assert snippet and "--workers 4" in snippet[0], res.output


SECTIONS_MD = """# Handbook

## Alpha

Alpha notes one.
Alpha notes two.

## Beta

The quarantine switch is flipped with `kbctl quarantine on`.
"""


def test_grep_breadcrumb_names_the_section_of_the_focus_lines(tmp_path: Path) -> None:
    # the ±10-line passage starts in Alpha, the matching line is in Beta: the breadcrumb says Beta;
    root = tmp_path / "kb"
    root.mkdir()
    (root / "handbook.md").write_text(SECTIONS_MD, encoding="utf-8")
    build_index(hash_settings(root))
    with Retriever(hash_settings(root)) as r:
        top = r.grep("quarantine switch", k=1)[0]
        assert top.start_line < _answer_line(root, "handbook.md", "## Beta")
        assert top.heading_path == ("Handbook", "Beta")
