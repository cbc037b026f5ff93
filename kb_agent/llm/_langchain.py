"""Adapter from a langchain-core chat model to kb's ChatModel protocol (shared by the providers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kb_agent.llm.base import Message, TokenSink

if TYPE_CHECKING:
    from langchain_core.language_models.chat_models import BaseChatModel


def _to_langchain(messages: Sequence[Message]) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[m.role](content=m.content) for m in messages]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
    return str(content)


class LangchainChatModel:
    """A kb ChatModel backed by any langchain `BaseChatModel`.

    Args:
        name: provider/model label for traces (never a key).
        model: the langchain chat model, configured without its own retries.
        json_model: optional variant bound to JSON output mode, used when `json_mode=True`.
    """

    offline = False

    def __init__(self, name: str, model: BaseChatModel, json_model: Any | None = None) -> None:
        self.name = name
        self._model = model
        self._json_model = json_model

    def complete(self, messages: Sequence[Message], *, json_mode: bool = False, on_token: TokenSink | None = None) -> str:
        """Invoke (or stream, when `on_token` is given) the wrapped model and return its text."""
        lc_messages = _to_langchain(messages)
        model: Any = self._json_model if (json_mode and self._json_model is not None) else self._model
        if on_token is None:
            return _text(model.invoke(lc_messages).content)
        parts: list[str] = []
        for chunk in model.stream(lc_messages):
            piece = _text(chunk.content)
            if piece:
                parts.append(piece)
                on_token(piece)
        return "".join(parts)
