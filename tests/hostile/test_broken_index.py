"""A broken index (random bytes over the catalog, a valid header over corrupt pages, a scrambled
Chroma file) gives one clear error on every command, and `kb index --rebuild` always recovers by
moving the broken store aside."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile.helpers import assert_one_clear_error, kb

PAGE = 4096  # SQLite's default page size, which the catalog uses


def _random_bytes(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


def scramble_catalog(root: Path) -> Path:
    """Random bytes over the whole catalog file, same size."""
    path = root / ".kb" / "catalog.sqlite"
    path.write_bytes(_random_bytes(path.stat().st_size, 1))
    return path


def corrupt_catalog_pages(root: Path) -> Path:
    """Keep the header and first page (schema), scramble every later page."""
    path = root / ".kb" / "catalog.sqlite"
    data = path.read_bytes()
    assert data.startswith(b"SQLite format 3\x00") and len(data) > 4 * PAGE
    path.write_bytes(data[:PAGE] + _random_bytes(len(data) - PAGE, 2))
    return path


def scramble_chroma(root: Path) -> Path:
    path = root / ".kb" / "chroma" / "chroma.sqlite3"
    path.write_bytes(_random_bytes(path.stat().st_size, 3))
    return path


CATALOG_DAMAGE: dict[str, Callable[[Path], Path]] = {"random_bytes": scramble_catalog, "corrupt_pages": corrupt_catalog_pages}


def _commands(root: Path, spec: Path) -> dict[str, list[str]]:
    return {
        "search": ["search", "how do I deploy", "--kb", str(root)],
        "grep": ["search", "deploy", "--tool", "grep", "--kb", str(root)],
        "ask": ["ask", "How do I roll back a deploy?", "--kb", str(root)],
        "check": ["check", str(spec), "--kb", str(root)],
        "index": ["index", "--kb", str(root)],
    }


@pytest.fixture
def spec(work: Path) -> Path:
    p = work / "checks.yaml"
    p.write_text("version: 1\nchecks:\n  - id: deploy\n    question: How do I roll back a deploy?\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("command", ["search", "grep", "ask", "check", "index"])
@pytest.mark.parametrize("damage", sorted(CATALOG_DAMAGE))
def test_corrupt_catalog_gives_one_clear_error(indexed_kb: Path, work: Path, spec: Path, damage: str, command: str) -> None:
    CATALOG_DAMAGE[damage](indexed_kb)
    run = kb(*_commands(indexed_kb, spec)[command], cwd=work)
    assert_one_clear_error(run, 3, "catalog")
    assert "kb index --rebuild" in run.err


@pytest.mark.parametrize("command", ["search", "ask", "check"])
def test_corrupt_vector_store_gives_one_clear_error(indexed_kb: Path, work: Path, spec: Path, command: str) -> None:
    scramble_chroma(indexed_kb)
    run = kb(*_commands(indexed_kb, spec)[command], cwd=work)
    assert_one_clear_error(run, 3, "vector store")
    assert "kb index --rebuild" in run.err


@pytest.mark.parametrize("damage", [*sorted(CATALOG_DAMAGE), "chroma"])
def test_rebuild_recovers_and_moves_the_broken_store_aside(indexed_kb: Path, work: Path, damage: str) -> None:
    broken = scramble_chroma(indexed_kb) if damage == "chroma" else CATALOG_DAMAGE[damage](indexed_kb)
    broken_bytes = broken.read_bytes()
    run = kb("index", "--rebuild", "--kb", str(indexed_kb), cwd=work)
    assert run.code == 0, run.text
    assert "moved it aside" in run.err, run.err
    aside = [p for p in (indexed_kb / ".kb").iterdir() if ".corrupt-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1, sorted(p.name for p in (indexed_kb / ".kb").iterdir())
    kept = aside[0] / "chroma.sqlite3" if damage == "chroma" else aside[0]
    assert kept.read_bytes() == broken_bytes, "the broken store is kept as it was, not opened and rewritten"
    for args in (["search", "how do I deploy"], ["search", "deploy", "--tool", "grep"]):
        found = kb(*args, "--kb", str(indexed_kb), cwd=work)
        assert found.code == 0 and "runbooks/" in found.out, found.text
    assert kb("index", "--kb", str(indexed_kb), cwd=work).code == 0


def test_rebuild_of_a_healthy_index_moves_nothing_aside(indexed_kb: Path, work: Path) -> None:
    run = kb("index", "--rebuild", "--kb", str(indexed_kb), cwd=work)
    assert run.code == 0, run.text
    assert "aside" not in run.err
    assert not [p for p in (indexed_kb / ".kb").iterdir() if ".corrupt-" in p.name]


def test_truncated_catalog_is_one_clear_error_then_recovers(indexed_kb: Path, work: Path) -> None:
    path = indexed_kb / ".kb" / "catalog.sqlite"
    path.write_bytes(path.read_bytes()[: PAGE + 100])
    run = kb("search", "deploy", "--kb", str(indexed_kb), cwd=work)
    assert_one_clear_error(run, 3, "catalog")
    assert kb("index", "--rebuild", "--kb", str(indexed_kb), cwd=work).code == 0
    assert kb("search", "deploy", "--kb", str(indexed_kb), cwd=work).code == 0
