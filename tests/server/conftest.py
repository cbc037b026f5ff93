"""Fixtures for the Chroma server-mode tests: one real `chroma run` on a free loopback port for
the session, and an environment without the developer's KB_* settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chroma_server import ChromaServer


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    base = tmp_path_factory.mktemp("chroma_server")
    server = ChromaServer(base / "data", base / "chroma.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _isolated_env(_isolated_env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """On top of the session-wide scrubbing: the hash embedder, and each test in its own folder."""
    monkeypatch.setenv("KB_EMBEDDING_PROVIDER", "hash")
    monkeypatch.chdir(tmp_path)


