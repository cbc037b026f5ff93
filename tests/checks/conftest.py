"""Fixtures for the docs-check tests: private copies of the session's hash-indexed sample_kb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sample import copy_indexed, copy_sample


@pytest.fixture
def kb(indexed_hash_kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, already indexed (hash embedder) copy of sample_kb; the working directory is its root."""
    root = copy_indexed(indexed_hash_kb, tmp_path / "kb")
    monkeypatch.setenv("KB_EMBEDDING_PROVIDER", "hash")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def plain_kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of sample_kb without an index (`kb links` reads the files directly)."""
    root = copy_sample(tmp_path / "plain")
    monkeypatch.chdir(root)
    return root
