"""Fixtures for chat tests: an indexed (hash embedder) copy of sample_kb per test, and a pexpect
driver for the real `kb chat` in a pseudo-terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.chat import KB_BIN, SLOW_CHAT, Chat, chat_env
from tests.support.sample import copy_indexed


@pytest.fixture
def chat_kb(indexed_hash_kb: Path, tmp_path: Path) -> Path:
    """A private copy of the session's hash-indexed sample_kb: chat writes .kb/chat.sqlite and
    .kb/chat_history into it."""
    return copy_indexed(indexed_hash_kb, tmp_path / "kb")


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
