"""The "openai" provider: any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp server, LM Studio)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb_agent.llm._langchain import LangchainChatModel
from kb_agent.llm.registry import register_provider

if TYPE_CHECKING:
    from kb_agent.settings import Settings

DEFAULT_MODEL = "gpt-4o-mini"


def create_openai(settings: Settings) -> LangchainChatModel:
    """ChatOpenAI with the configured base URL and timeout; retries are ours (max_retries=0)."""
    from langchain_openai import ChatOpenAI

    # a local server needs no key, but the client insists on one being set
    key = settings.llm_api_key.get_secret_value() or "not-needed"
    kwargs: dict[str, object] = {
        "model": settings.llm_model or DEFAULT_MODEL,
        "api_key": key,
        "timeout": settings.llm_timeout_s,
        "max_retries": 0,
        "temperature": settings.llm_temperature,
    }
    if settings.llm_base_url:
        kwargs["base_url"] = settings.llm_base_url
        # langchain-openai sends the cap as `max_completion_tokens`, which llama.cpp's server (and
        # other OpenAI-compatible servers) ignore — a small local model then writes until its
        # context is full. Those servers read `max_tokens`.
        kwargs["extra_body"] = {"max_tokens": settings.llm_max_tokens}
    else:
        kwargs["max_tokens"] = settings.llm_max_tokens
    model = ChatOpenAI(**kwargs)  # type: ignore[arg-type]
    json_model = model.bind(response_format={"type": "json_object"})
    return LangchainChatModel(f"openai:{kwargs['model']}", model, json_model)


register_provider("openai", create_openai)
