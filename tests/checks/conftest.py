"""Fixtures for the docs-check tests: private copies of the session's hash-indexed sample_kb."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SAMPLE_KB = Path(__file__).resolve().parents[2] / "sample_kb"


@pytest.fixture
def kb(indexed_hash_kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, already indexed (hash embedder) copy of sample_kb; the working directory is its root."""
    root = tmp_path / "kb"
    shutil.copytree(indexed_hash_kb, root, copy_function=shutil.copy2)  # copy2 keeps mtimes: the index stays fresh
    monkeypatch.setenv("KB_EMBEDDING_PROVIDER", "hash")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def plain_kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of sample_kb without an index (`kb links` reads the files directly)."""
    root = tmp_path / "plain"
    shutil.copytree(SAMPLE_KB, root, ignore=shutil.ignore_patterns(".kb"))
    monkeypatch.chdir(root)
    return root
