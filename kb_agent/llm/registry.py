"""Chat-model providers by name: built-ins register here exactly as a third-party plug-in would."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kb_agent.errors import ConfigError

if TYPE_CHECKING:
    from kb_agent.llm.base import ChatModel
    from kb_agent.settings import Settings

ProviderFactory = Callable[["Settings"], "ChatModel"]

_PROVIDERS: dict[str, ProviderFactory] = {}
_BUILTINS_LOADED = {"done": False}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Make `KB_LLM_PROVIDER=name` build its model with `factory(settings)`.

    Args:
        name: the provider name users put in settings.
        factory: builds a ChatModel from Settings; it should import its client library lazily.
    """
    _PROVIDERS[name] = factory


def provider_names() -> list[str]:
    """Names of every registered provider, built-ins included."""
    _load_builtins()
    return sorted(_PROVIDERS)


def create_chat_model(settings: Settings) -> ChatModel:
    """Build the chat model named by `settings.llm_provider`.

    Raises:
        ConfigError: no provider of that name, or the provider's settings are incomplete.
    """
    _load_builtins()
    factory = _PROVIDERS.get(settings.llm_provider)
    if factory is None:
        raise ConfigError(
            f"unknown chat-model provider {settings.llm_provider!r}",
            hint=f"KB_LLM_PROVIDER takes one of: {', '.join(provider_names())}",
        )
    return factory(settings)


def _load_builtins() -> None:
    if _BUILTINS_LOADED["done"]:
        return
    _BUILTINS_LOADED["done"] = True
    # each module calls register_provider at import; the client libraries load only in the factory
    from kb_agent.llm import llamacpp, offline, ollama, openai  # noqa: F401
