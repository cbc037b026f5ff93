"""Chat-model providers by name: built-ins register here exactly as a third-party plug-in would
(an installed package adds one through the `kb_agent.llm_providers` entry-point group; see kb_agent.plugins)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb_agent.plugins import LLM_PROVIDERS, ChatModelFactory

if TYPE_CHECKING:
    from kb_agent.llm.base import ChatModel
    from kb_agent.settings import Settings

ProviderFactory = ChatModelFactory


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Make `KB_LLM_PROVIDER=name` build its model with `factory(settings)`.

    Args:
        name: the provider name users put in settings.
        factory: builds a ChatModel from Settings; it should import its client library lazily.
    """
    LLM_PROVIDERS.register(name, factory)


def provider_names() -> list[str]:
    """Names of every registered provider, built-ins and installed plug-ins included."""
    return LLM_PROVIDERS.names()


def create_chat_model(settings: Settings) -> ChatModel:
    """Build the chat model named by `settings.llm_provider`.

    Raises:
        ConfigError: no provider of that name, or the provider's settings are incomplete.
    """
    return LLM_PROVIDERS.get(settings.llm_provider)(settings)
