"""Provider registries by name — chat models and embedders — filled by kb's built-ins and by installed
packages through entry points, as simonw/llm's plug-ins are: a package declares

    [project.entry-points."kb_agent.llm_providers"]      # or "kb_agent.embedders"
    myprovider = "my_package.module:factory"

and `KB_LLM_PROVIDER=myprovider` works. Installed packages are trusted; a folder's `.env` only names one.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Generic, TypeVar

from kb_agent.errors import ConfigError

if TYPE_CHECKING:
    from kb_agent.index.embeddings import Embedder
    from kb_agent.llm.base import ChatModel
    from kb_agent.settings import Settings

log = logging.getLogger(__name__)

LLM_GROUP = "kb_agent.llm_providers"
EMBEDDER_GROUP = "kb_agent.embedders"

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind; built-in modules and entry points are loaded on first need.

    Args:
        kind: what an entry is, for messages ("chat-model provider").
        setting: the environment variable that names one ("KB_LLM_PROVIDER").
        group: the entry-point group third-party packages register under.
        builtins: modules whose import registers kb's own entries (the same call a plug-in makes).
        adapt: turns what an entry point loads into an entry (e.g. wraps a bare factory).
    """

    def __init__(self, kind: str, setting: str, group: str, builtins: tuple[str, ...], adapt: Callable[[str, object], T]) -> None:
        self.kind = kind
        self.setting = setting
        self.group = group
        self._builtins = builtins
        self._adapt = adapt
        self._entries: dict[str, T] = {}
        self._broken: dict[str, str] = {}  # entry points that failed to load, with why
        self._from_plugins: set[str] = set()
        self._loaded = {"builtins": False, "plugins": False}

    def register(self, name: str, entry: T) -> None:
        """Make `name` available (a later registration of the same name replaces the earlier one)."""
        self._entries[name] = entry
        self._broken.pop(name, None)

    def names(self) -> list[str]:
        """Every registered name, built-ins and installed plug-ins included."""
        self._load_builtins()
        self._load_plugins()
        return sorted(self._entries)

    def get(self, name: str) -> T:
        """The entry registered as `name`.

        Raises:
            ConfigError: no entry of that name (the message lists the known ones), or its package failed to load.
        """
        self._load_builtins()
        if name not in self._entries:
            self._load_plugins()
        if name in self._entries:
            return self._entries[name]
        if name in self._broken:
            raise ConfigError(f"the {self.kind} {name!r} failed to load: {self._broken[name]}", hint="reinstall the package that provides it")
        raise ConfigError(self.unknown(name), hint=f"{self.setting} takes one of: {', '.join(self.names())}")

    def check(self, name: str) -> str:
        """`name` when it is registered (settings validation).

        Raises:
            ValueError: unknown name; the message lists the known ones.
        """
        try:
            self.get(name)
        except ConfigError as e:
            raise ValueError(e.message if name in self._broken else f"{self.unknown(name)}; known: {', '.join(self.names())}") from None
        return name

    def refresh(self) -> None:
        """Forget what entry points registered, so the next lookup reads the installed packages again
        (a package installed into a running process, or a test)."""
        for name in self._from_plugins:
            self._entries.pop(name, None)
        self._from_plugins.clear()
        self._broken.clear()
        self._loaded["plugins"] = False

    def unknown(self, name: str) -> str:
        return f"unknown {self.kind} {name!r}"

    def _load_builtins(self) -> None:
        if self._loaded["builtins"]:
            return
        self._loaded["builtins"] = True
        for module in self._builtins:
            importlib.import_module(module)  # each calls register() at import

    def _load_plugins(self) -> None:
        if self._loaded["plugins"]:
            return
        self._loaded["plugins"] = True
        for ep in entry_points(group=self.group):
            if ep.name in self._entries:
                continue  # a plug-in does not silently replace a built-in of the same name
            try:
                self._entries[ep.name] = self._adapt(ep.name, ep.load())
                self._from_plugins.add(ep.name)
            except Exception as e:  # a broken plug-in must not take the others down
                self._broken[ep.name] = f"{type(e).__name__}: {e}"
                log.warning("%s %r from %s failed to load: %s", self.kind, ep.name, ep.value, e)


ChatModelFactory = Callable[["Settings"], "ChatModel"]
EmbedderFactory = Callable[["Settings"], "Embedder"]


@dataclass(frozen=True, slots=True)
class EmbedderPlugin:
    """An embedding provider: `create` builds it; `model_name` says, without loading any model,
    the provider/model string the index fingerprint records (so switching models asks for a rebuild)."""

    create: EmbedderFactory
    model_name: Callable[[Settings], str]


def _factory(name: str, obj: object) -> ChatModelFactory:
    if not callable(obj):
        raise TypeError(f"entry point {name!r} is not a factory: {obj!r}")
    return obj


def _embedder(name: str, obj: object) -> EmbedderPlugin:
    if isinstance(obj, EmbedderPlugin):
        return obj
    if not callable(obj):
        raise TypeError(f"entry point {name!r} is neither an EmbedderPlugin nor a factory: {obj!r}")
    return EmbedderPlugin(create=obj, model_name=lambda s: f"{name}/{s.embedding_model}")


LLM_PROVIDERS: Registry[ChatModelFactory] = Registry(
    "chat-model provider", "KB_LLM_PROVIDER", LLM_GROUP,
    ("kb_agent.llm.offline", "kb_agent.llm.openai", "kb_agent.llm.ollama", "kb_agent.llm.llamacpp"), _factory,
)
EMBEDDERS: Registry[EmbedderPlugin] = Registry(
    "embedding provider", "KB_EMBEDDING_PROVIDER", EMBEDDER_GROUP, ("kb_agent.index.embeddings",), _embedder,
)
