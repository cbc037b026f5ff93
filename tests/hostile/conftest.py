"""Hostile-input fixtures: a neutral working folder, fresh and indexed copies of sample_kb, and an
indexed copy behind a read-only bind mount."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.helpers import readonly_bind
from tests.support.sample import copy_indexed, copy_sample


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A neutral working directory (no .env) for child processes."""
    d = tmp_path / "cwd"
    d.mkdir()
    return d


@pytest.fixture
def fresh_kb(tmp_path: Path) -> Path:
    """An unindexed copy of sample_kb."""
    return copy_sample(tmp_path / "kb")


@pytest.fixture
def indexed_kb(indexed_hash_kb: Path, tmp_path: Path) -> Path:
    """A private copy of the session's hash-indexed sample_kb (mtimes kept, so the index is fresh)."""
    return copy_indexed(indexed_hash_kb, tmp_path / "kb")


@pytest.fixture
def ro_indexed_kb(indexed_kb: Path) -> Iterator[Path]:
    """The indexed copy behind a read-only bind mount."""
    with readonly_bind(indexed_kb) as ro:
        yield ro
