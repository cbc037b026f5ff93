"""Chat messages go through the one query cleaner before a turn starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.errors import InvalidQuery
from kb_agent.retrieval.query import MAX_QUESTION_CHARS


def test_messages_are_cleaned_and_bounded(chat_kb: Path) -> None:
    from kb_agent.chat.session import ChatSession
    from kb_agent.settings import Settings

    session = ChatSession(Settings(root=chat_kb, embedding_provider="hash", _env_file=None))  # type: ignore[call-arg]
    try:
        with pytest.raises(InvalidQuery, match="the message is empty"):
            session.start_turn("\x1b[31m\x1b[0m \u200b")
        with pytest.raises(InvalidQuery, match=f"the limit is {MAX_QUESTION_CHARS:,}"):
            session.start_turn("x" * (MAX_QUESTION_CHARS + 1))
        result = session.ask("What is the default\x1b[1;31m cache TTL?\x1b[0m")
        assert result.answer.question == "What is the default cache TTL?"
    finally:
        session.close()
