"""The "none" provider: no model at all, so every node takes its deterministic path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kb_agent.errors import LlmError
from kb_agent.llm.base import Message, TokenSink
from kb_agent.llm.registry import register_provider

if TYPE_CHECKING:
    from kb_agent.settings import Settings


class OfflineModel:
    """Stands in for a chat model when KB_LLM_PROVIDER=none; it is never asked to complete."""

    name = "none"
    offline = True

    def complete(self, messages: Sequence[Message], *, json_mode: bool = False, on_token: TokenSink | None = None) -> str:
        """Always raises: callers check `offline` first.

        Raises:
            LlmError: always.
        """
        raise LlmError("no chat model is configured", hint="set KB_LLM_PROVIDER to openai, ollama or llamacpp")


def _create(settings: Settings) -> OfflineModel:
    return OfflineModel()


register_provider("none", _create)
