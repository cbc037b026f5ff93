"""Fixtures for the Chroma server-mode tests: one real `chroma run` on a free loopback port for
the session, and an environment without the developer's KB_* settings."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # server_helpers, importable from the test modules
from server_helpers import ChromaServer  # noqa: E402


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    base = tmp_path_factory.mktemp("chroma_server")
    server = ChromaServer(base / "data", base / "chroma.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No KB_* from the developer's shell and no stray `.env`: each test says what it uses."""
    for key in list(os.environ):
        if key.startswith("KB_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("KB_EMBEDDING_PROVIDER", "hash")
    monkeypatch.chdir(tmp_path)


