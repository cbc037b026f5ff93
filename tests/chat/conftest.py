"""Fixtures for chat tests: an indexed (hash embedder) copy of sample_kb per test, and a pexpect
driver for the real `kb chat` in a pseudo-terminal."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from chat_helpers import REPO, SLOW_CHAT, KB_BIN, Chat, chat_env  # noqa: E402

@pytest.fixture(scope="session")
def chat_kb_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_kb indexed once with the hash embedder (copied per test; never used directly)."""
    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    root = tmp_path_factory.mktemp("chatkb") / "kb"
    shutil.copytree(REPO / "sample_kb", root, ignore=shutil.ignore_patterns(".kb"))
    build_index(Settings(root=root, embedding_provider="hash", _env_file=None))  # type: ignore[call-arg]
    return root


@pytest.fixture
def chat_kb(chat_kb_template: Path, tmp_path: Path) -> Path:
    """A private indexed copy: chat writes .kb/chat.sqlite and .kb/chat_history into it."""
    root = tmp_path / "kb"
    shutil.copytree(chat_kb_template, root)
    return root


@pytest.fixture
def spawn_chat() -> Iterator[Any]:
    """spawn_chat(kb, *args, slow=False) → a Chat driving `kb chat --kb KB ARGS` (or the slow entry point)."""
    started: list[Chat] = []

    def spawn(kb: Path, *args: str, slow: bool = False, **env: str) -> Chat:
        argv = [sys.executable, SLOW_CHAT, str(kb), *args] if slow else [KB_BIN, "chat", "--kb", str(kb), *args]
        chat = Chat(argv, chat_env(**env))
        started.append(chat)
        return chat

    yield spawn
    for chat in started:
        chat.close()
