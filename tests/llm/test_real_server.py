"""The model path against real servers on loopback: llama.cpp's OpenAI-compatible server with the
Gemma 3 270M GGUF, the same GGUF in process (llamacpp provider), and faults — server down, HTTP 500s,
garbage JSON, a timeout, the server killed mid-answer. Invariants only: schema-valid output and
trace, ≤ 3 model calls on a GENERATE path, every citation verified, an answer by the fallback when
the model fails, never a crash."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from kb_agent.cli import app
from tests.support.llama import LlamaServer, free_port, gguf_model_path

pytestmark = pytest.mark.llm


@pytest.fixture(autouse=True)
def _short_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 270M base model on 2 cores writes ~30 tokens/s: cap replies so each test stays in budget."""
    monkeypatch.setenv("KB_LLM_MAX_TOKENS", "256")

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "docs" / "ask.schema.json").read_text(encoding="utf-8"))
QUESTION = "What is the default value of cache.ttl_seconds?"


@pytest.fixture(scope="session")
def gguf_path() -> str:
    return gguf_model_path()


@pytest.fixture(scope="session")
def llama_server(gguf_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    server = LlamaServer(gguf_path, tmp_path_factory.mktemp("llama") / "server.log")
    yield server
    server.stop()


class FaultServer:
    """A stdlib HTTP server on loopback that misbehaves in one chosen way."""

    def __init__(self, mode: str) -> None:
        handler = type("H", (_FaultHandler,), {"mode": mode})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _FaultHandler(http.server.BaseHTTPRequestHandler):
    mode = "500"
    hits = 0

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        type(self).hits += 1
        if self.mode == "500":
            self._send(500, b'{"error": {"message": "boom"}}')
        elif self.mode == "garbage_body":
            self._send(200, b"<html>definitely not json")
        elif self.mode == "garbage_content":
            body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "lol {{{ not json"}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
            self._send(200, json.dumps(body).encode())
        elif self.mode == "slow":
            time.sleep(3)
            self._send(500, b"{}")

    def _send(self, status: int, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            pass


def ask_json(kb: Path, env: dict[str, str], *args: str) -> dict[str, Any]:
    r = CliRunner().invoke(app, ["ask", "--kb", str(kb), "--json", *args, QUESTION], env={"KB_EMBEDDING_PROVIDER": "hash", **env})
    assert r.exit_code in (0, 1), f"exit {r.exit_code}: {r.output}"
    doc: dict[str, Any] = json.loads(r.stdout)
    assert_invariants(kb, doc)
    assert (r.exit_code == 0) == (doc["answer_source"] == "kb" and bool(doc["citations"]))
    return doc


def assert_invariants(kb: Path, doc: dict[str, Any]) -> None:
    jsonschema.validate(doc, SCHEMA)
    assert [t["node"] for t in doc["trace"]][0] == "prepare" and doc["trace"][-1]["node"] == "synthesize"
    for c in doc["citations"]:
        lines = (kb / c["path"]).read_text(encoding="utf-8").split("\n")
        assert c["end_line"] <= len(lines)
        span = " ".join(" ".join(lines[c["start_line"] - 1 : c["end_line"]]).split())
        assert " ".join(c["quote"].split()) in span
    markers = {int(n) for n in __import__("re").findall(r"\[(\d+)\]", doc["answer"].split("\n---\n")[0])}
    assert markers <= {c["n"] for c in doc["citations"]}
    # a GENERATE path with no repair or retry costs at most route + grade + synthesize
    notes = " ".join(n for t in doc["trace"] for n in t["notes"])
    if [i["action"] for i in doc["iterations"]] == ["generate"] and "repair" not in notes and "retry" not in notes:
        assert doc["model_calls"] <= 3


def notes_of(doc: dict[str, Any]) -> str:
    return " | ".join(n for t in doc["trace"] for n in t["notes"])


def test_openai_compatible_server_generate_path(llama_server: LlamaServer, indexed_hash_kb: Path) -> None:
    env = {"KB_LLM_PROVIDER": "openai", "KB_LLM_BASE_URL": llama_server.url, "KB_LLM_MODEL": "gemma", "KB_LLM_TIMEOUT_S": "120", "KB_LLM_DEADLINE_S": "900"}
    doc = ask_json(indexed_hash_kb, env, "--max-iterations", "1")
    assert doc["model"] == "openai:gemma"
    assert 1 <= doc["model_calls"] <= 5  # fast path: grade (+1 repair) and synthesize (+1 general) at most
    assert doc["stop_reason"] in ("generate", "max_iterations")


def test_openai_compatible_server_full_loop(llama_server: LlamaServer, indexed_hash_kb: Path) -> None:
    env = {"KB_LLM_PROVIDER": "openai", "KB_LLM_BASE_URL": llama_server.url, "KB_LLM_TIMEOUT_S": "120", "KB_LLM_DEADLINE_S": "900"}
    r = CliRunner().invoke(app, ["ask", "--kb", str(indexed_hash_kb), "--json",
                                 "Compare the Redis Sentinel decision with the Redis Cluster sharding decision: why did we change?"],
                           env={"KB_EMBEDDING_PROVIDER": "hash", **env})
    assert r.exit_code in (0, 1), r.output
    doc = json.loads(r.stdout)
    assert_invariants(indexed_hash_kb, doc)
    assert doc["model_calls"] >= 2
    assert len(doc["iterations"]) <= 3


def test_llamacpp_in_process(gguf_path: str, indexed_hash_kb: Path) -> None:
    from kb_agent.render.json import answer_dict as answer_to_dict
    from kb_agent.agent.engine import Engine
    from kb_agent.settings import Settings

    s = Settings(root=indexed_hash_kb, embedding_provider="hash", llm_provider="llamacpp", llm_model_path=gguf_path, _env_file=None)  # type: ignore[call-arg]
    with Engine(s) as engine:
        a = engine.answer_query(QUESTION, max_iterations=1)
    doc = answer_to_dict(a)
    assert_invariants(indexed_hash_kb, doc)
    assert doc["model"].startswith("llamacpp:") and doc["model_calls"] >= 1


def test_server_down_falls_back(indexed_hash_kb: Path) -> None:
    env = {"KB_LLM_PROVIDER": "openai", "KB_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "KB_LLM_MAX_RETRIES": "1"}
    doc = ask_json(indexed_hash_kb, env)
    assert doc["answer_source"] == "kb" and doc["citations"]
    assert "fell back" in notes_of(doc) and "transient fault" in notes_of(doc)


@pytest.mark.parametrize("mode", ["500", "garbage_body", "garbage_content"])
def test_misbehaving_server_falls_back(indexed_hash_kb: Path, mode: str) -> None:
    server = FaultServer(mode)
    try:
        env = {"KB_LLM_PROVIDER": "openai", "KB_LLM_BASE_URL": server.url, "KB_LLM_MAX_RETRIES": "1"}
        doc = ask_json(indexed_hash_kb, env)
    finally:
        server.stop()
    assert doc["answer_source"] == "kb" and doc["citations"], "the deterministic path still answers"
    notes = notes_of(doc)
    assert "fell back" in notes or "extractive answer used" in notes
    if mode == "garbage_content":
        assert "one repair try" in notes


def test_timeout_falls_back(indexed_hash_kb: Path) -> None:
    server = FaultServer("slow")
    try:
        env = {"KB_LLM_PROVIDER": "openai", "KB_LLM_BASE_URL": server.url, "KB_LLM_MAX_RETRIES": "0", "KB_LLM_TIMEOUT_S": "0.5"}
        t0 = time.perf_counter()
        doc = ask_json(indexed_hash_kb, env)
        assert time.perf_counter() - t0 < 30
    finally:
        server.stop()
    assert doc["answer_source"] == "kb"
    assert "Timeout" in notes_of(doc)


def test_server_killed_mid_answer(gguf_path: str, indexed_hash_kb: Path, tmp_path: Path) -> None:
    from kb_agent.render.json import answer_dict as answer_to_dict
    from kb_agent.agent.engine import Engine
    from kb_agent.settings import Settings

    server = LlamaServer(gguf_path, tmp_path / "server.log")
    killed: list[str] = []

    def kill_on_grade(event: dict[str, Any]) -> None:
        if not killed and (event.get("node") == "grade_evidence" and event.get("status") == "start" or event.get("type") == "token"):
            server.proc.kill()
            server.proc.wait(timeout=10)
            killed.append(str(event.get("node") or event.get("type")))

    try:
        s = Settings(root=indexed_hash_kb, embedding_provider="hash", llm_provider="openai", llm_base_url=server.url,
                     llm_max_retries=1, llm_timeout_s=60, _env_file=None)  # type: ignore[call-arg]
        with Engine(s) as engine:
            a = engine.answer_query(QUESTION, on_event=kill_on_grade)
    finally:
        server.stop()
    assert killed, "the server was never killed"
    doc = answer_to_dict(a)
    assert_invariants(indexed_hash_kb, doc)
    assert a.found, "the fallback still answers"
    assert "fell back" in notes_of(doc)
