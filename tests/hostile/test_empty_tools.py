"""`--tool files` and `--tool related` return nothing (exit 1, "no results") when nothing matches,
instead of the nearest unrelated files; real matches still come back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.helpers import kb

NONSENSE = "qzxv wubbalubba frobnicatrix"


@pytest.mark.parametrize("tool", ["files", "related"])
def test_nothing_matches_means_no_results(indexed_kb: Path, work: Path, tool: str) -> None:
    run = kb("search", NONSENSE, "--tool", tool, "--kb", str(indexed_kb), cwd=work)
    assert run.code == 1, run.text
    assert run.out == "" and "no results" in run.err, run.text


@pytest.mark.parametrize("tool", ["files", "related"])
def test_nothing_matches_json_is_empty(indexed_kb: Path, work: Path, tool: str) -> None:
    run = kb("search", NONSENSE, "--tool", tool, "--kb", str(indexed_kb), "--json", cwd=work)
    assert run.code == 1, run.text
    assert json.loads(run.out)["results"] == []


def test_files_still_finds_by_title_and_by_content(indexed_kb: Path, work: Path) -> None:
    by_title = json.loads(kb("search", "rollback", "--tool", "files", "--kb", str(indexed_kb), "--json", cwd=work).out)
    assert by_title["results"][0]["path"] == "runbooks/rollback.md"
    # a word only in the body of one file (no title, tag or path word): found through its text
    (indexed_kb / "notes.md").write_text("# Misc notes\n\nThe quokkaflux valve must stay shut.\n", encoding="utf-8")
    assert kb("index", "--kb", str(indexed_kb), cwd=work).code == 0
    by_body = kb("search", "quokkaflux", "--tool", "files", "--kb", str(indexed_kb), "--json", cwd=work)
    assert by_body.code == 0 and [r["path"] for r in json.loads(by_body.out)["results"]] == ["notes.md"], by_body.text


def test_related_still_follows_links(indexed_kb: Path, work: Path) -> None:
    run = kb("search", "runbooks/rollback.md", "--tool", "related", "--kb", str(indexed_kb), "--json", cwd=work)
    assert run.code == 0, run.text
    assert json.loads(run.out)["results"], run.out
