"""The "llamacpp" provider: a local GGUF file in process via langchain-community's ChatLlamaCpp.

langchain-community is an optional extra (`pip install kb-agent[llamacpp]`) that its maintainers are
sunsetting; it stays isolated here, imported lazily, and its import-time warnings are silenced.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from kb_agent.errors import ConfigError
from kb_agent.llm._langchain import LangchainChatModel
from kb_agent.llm.registry import register_provider

if TYPE_CHECKING:
    from kb_agent.settings import Settings

# 270M–8B models fit comfortably; a larger window costs memory for nothing on our prompts
CONTEXT_TOKENS = 8192


def _import_chat_llamacpp() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from langchain_community.chat_models import ChatLlamaCpp
        except ImportError as e:
            raise ConfigError(
                "the llamacpp provider needs the optional extra",
                hint="pip install 'kb-agent[llamacpp]'  (langchain-community and llama-cpp-python)",
            ) from e
    return ChatLlamaCpp


def create_llamacpp(settings: Settings) -> LangchainChatModel:
    """ChatLlamaCpp over `KB_LLM_MODEL_PATH`, loaded once per process.

    Raises:
        ConfigError: no model path, the file is missing, or the extra is not installed.
    """
    path = settings.llm_model_path
    if not path:
        raise ConfigError("KB_LLM_MODEL_PATH is required for the llamacpp provider", hint="point it at a .gguf file")
    if not os.path.isfile(path):
        raise ConfigError(f"GGUF model file not found: {path}", hint="check KB_LLM_MODEL_PATH")
    key = (os.path.realpath(path), settings.llm_temperature, settings.llm_max_tokens)
    model = _LOADED.get(key)
    if model is None:
        model = _LOADED[key] = _load(path, settings.llm_temperature, settings.llm_max_tokens)
    return _QuietModel(f"llamacpp:{os.path.basename(path)}", model)


# loading a GGUF takes seconds; keep one instance per file for the life of the process
_LOADED: dict[tuple[str, float, int], Any] = {}


def _close_all() -> None:
    """Free the models before interpreter shutdown: llama_cpp's own __del__ runs too late then and
    prints a TypeError from half-torn-down modules."""
    for model in _LOADED.values():
        client = getattr(model, "client", None)
        if client is not None and hasattr(client, "close"):
            try:
                client.close()
            except Exception:  # noqa: BLE001 - shutting down anyway
                pass
    _LOADED.clear()


atexit.register(_close_all)


def _load(path: str, temperature: float, max_tokens: int) -> Any:
    chat_cls = _import_chat_llamacpp()
    with warnings.catch_warnings(), _plain_cpu_buffers():
        warnings.simplefilter("ignore")
        return chat_cls(
            model_path=path,
            n_ctx=CONTEXT_TOKENS,
            temperature=temperature,
            max_tokens=max_tokens,
            verbose=False,
        )


_PARAMS_LOCK = threading.Lock()


@contextlib.contextmanager
def _plain_cpu_buffers() -> Iterator[None]:
    """Load the model without llama.cpp's extra weight buffers (repacked and AMX-tile layouts).

    On a CPU (or VM) that advertises AMX it cannot run, ggml picks its AMX kernels and the process
    dies with SIGILL on the first token — not an error kb could catch. The plain CPU kernels give the
    same tokens everywhere, a little slower on machines whose AMX works. llama_cpp.Llama reads the
    defaults from `llama_model_default_params()` while constructing, and exposes no argument for
    this field, so the defaults are swapped for the duration of the load.
    """
    import llama_cpp.llama_cpp as low

    with _PARAMS_LOCK:
        original = low.llama_model_default_params

        def params() -> Any:
            p = original()
            if hasattr(p, "use_extra_bufts"):
                p.use_extra_bufts = False
            return p

        low.llama_model_default_params = params
        try:
            yield
        finally:
            low.llama_model_default_params = original


class _QuietModel(LangchainChatModel):
    """Silences the community package's deprecation warnings on every call, not only on import."""

    def complete(self, *args: Any, **kwargs: Any) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return super().complete(*args, **kwargs)


register_provider("llamacpp", create_llamacpp)
