"""The chat-model protocol every provider implements, and the message value it takes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]
TokenSink = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str


@runtime_checkable
class ChatModel(Protocol):
    """A chat model that turns messages into text.

    `offline` is True only for the built-in "none" provider: nodes then take their deterministic
    path without calling `complete`. Implementations raise their client's own exceptions; the
    retry layer (`kb_agent.llm.retry`) classifies them as transient or not.
    """

    name: str
    offline: bool

    def complete(self, messages: Sequence[Message], *, json_mode: bool = False, on_token: TokenSink | None = None) -> str:
        """Return the model's reply to `messages`.

        Args:
            messages: system/user/assistant turns, oldest first.
            json_mode: ask the server for a JSON object when it supports that.
            on_token: called with each text fragment as it arrives (streaming), when given.

        Returns:
            The full reply text.
        """
        ...
