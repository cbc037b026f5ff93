"""`kb chat` on the model path: the real REPL in a pseudo-terminal against llama.cpp's
OpenAI-compatible server (Gemma 3 270M) on loopback. Invariants only: no crash, an answer printed
each turn, every printed citation names real lines of a real file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.llama import LlamaServer, gguf_model_path

pytestmark = pytest.mark.llm

# a 270M model on two busy shared cores: one turn (route, grade, synthesize) took 6 minutes under load
MODEL_TURN_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def llama_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = LlamaServer(gguf_model_path(), tmp_path_factory.mktemp("llama") / "server.log")
    yield server.url
    server.stop()


def assert_citations_real(kb: Path, output: str) -> int:
    found = re.findall(r"\[\d+\] ([\w./-]+\.md):L(\d+)(?:-L(\d+))?", output)
    for path, start, end in found:
        lines = (kb / path).read_text(encoding="utf-8").split("\n")
        assert 1 <= int(start) <= int(end or start) <= len(lines), (path, start, end)
    return len(found)


def test_chat_with_a_real_model_server(chat_kb: Path, spawn_chat: Any, llama_url: str) -> None:
    chat = spawn_chat(chat_kb, "--thread", "model", KB_LLM_PROVIDER="openai", KB_LLM_BASE_URL=llama_url,
                      KB_LLM_MODEL="gemma", KB_LLM_TIMEOUT_S="120", KB_LLM_DEADLINE_S="900", KB_AGENT_MAX_ITERATIONS="1", KB_LLM_MAX_TOKENS="256")
    assert "model openai:gemma" in chat.prompt()
    for question in ("How do I deploy orders-api?", "and how do I roll that back?"):
        out = chat.ask(question, timeout=MODEL_TURN_TIMEOUT_S).split(question, 1)[-1]
        assert "Traceback" not in out and "unexpected error" not in out
        body = out.split("---")[0]
        assert len(body.strip()) > 20 or "does not answer" in out, out
        assert_citations_real(chat_kb, out)
    trace = chat.ask("/trace")
    assert "standalone" in trace and "model calls" in trace
    assert chat.quit() == 0
