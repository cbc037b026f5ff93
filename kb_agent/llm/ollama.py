"""The "ollama" provider: a local or remote Ollama server via langchain-ollama."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb_agent.errors import ConfigError
from kb_agent.llm._langchain import LangchainChatModel
from kb_agent.llm.registry import register_provider

if TYPE_CHECKING:
    from kb_agent.settings import Settings


def create_ollama(settings: Settings) -> LangchainChatModel:
    """ChatOllama for `KB_LLM_MODEL` at `KB_LLM_BASE_URL` (default http://localhost:11434).

    Raises:
        ConfigError: KB_LLM_MODEL is not set.
    """
    from langchain_ollama import ChatOllama

    if not settings.llm_model:
        raise ConfigError("KB_LLM_MODEL is required for the ollama provider", hint="e.g. KB_LLM_MODEL=qwen2.5:3b")
    kwargs: dict[str, object] = {
        "model": settings.llm_model,
        "temperature": settings.llm_temperature,
        "num_predict": settings.llm_max_tokens,
        "client_kwargs": {"timeout": settings.llm_timeout_s},
    }
    if settings.llm_base_url:
        kwargs["base_url"] = settings.llm_base_url
    model = ChatOllama(**kwargs)  # type: ignore[arg-type]
    json_model = ChatOllama(**{**kwargs, "format": "json"})  # type: ignore[arg-type]
    return LangchainChatModel(f"ollama:{settings.llm_model}", model, json_model)


register_provider("ollama", create_ollama)
