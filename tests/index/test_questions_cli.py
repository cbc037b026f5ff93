"""`kb index --questions` and the KB_INDEX_QUESTIONS setting from the command line (issue 14): refused
without a chat model, off by default, the cost in the report and `--json`, the pool in `kb status`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb_agent.cli import app
from tests.support.fake_openai import FakeOpenAI

runner = CliRunner()


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as s:
        yield s


def kb(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), env={"KB_EMBEDDING_PROVIDER": "hash", **(env or {})})


def model_env(server: FakeOpenAI, **extra: str) -> dict[str, str]:
    return {"KB_LLM_PROVIDER": "openai", "KB_LLM_BASE_URL": server.url, "KB_LLM_MODEL": "fake-q", **extra}


def asked(server: FakeOpenAI) -> int:
    return sum(1 for r in server.requests if r.kind == "questions")


def test_questions_without_a_chat_model_is_a_usage_error(sample_kb: Path) -> None:
    res = kb("index", "--kb", str(sample_kb), "--questions")
    assert res.exit_code == 2
    assert "--questions needs a chat model" in res.output and "KB_LLM_PROVIDER" in res.output
    assert not (sample_kb / ".kb").exists()  # refused before any work


def test_the_setting_without_a_model_notes_it_and_indexes_offline(sample_kb: Path) -> None:
    res = kb("index", "--kb", str(sample_kb), "--json", env={"KB_INDEX_QUESTIONS": "true"})
    assert res.exit_code == 0
    assert "no chat model is configured" in res.stderr
    assert json.loads(res.stdout)["questions"] is None


def test_off_by_default_even_with_a_chat_model(sample_kb: Path, server: FakeOpenAI) -> None:
    res = kb("index", "--kb", str(sample_kb), "--json", env=model_env(server))
    assert res.exit_code == 0 and json.loads(res.stdout)["questions"] is None and asked(server) == 0
    res = kb("index", "--kb", str(sample_kb), "--no-questions", "--json", env=model_env(server, KB_INDEX_QUESTIONS="1"))
    assert res.exit_code == 0 and asked(server) == 0


def test_the_report_and_status_show_the_pool_and_its_cost(sample_kb: Path, server: FakeOpenAI) -> None:
    env = model_env(server, KB_QUESTIONS_BATCH_SIZE="16", KB_QUESTIONS_PER_CHUNK="2")
    res = kb("index", "--kb", str(sample_kb), "--questions", "--json", env=env)
    assert res.exit_code == 0, res.output
    q = json.loads(res.stdout)["questions"]
    chunks = json.loads(res.stdout)["chunks_total"]
    assert q["model"] == "openai:fake-q" and q["chunks_written"] == chunks and q["chunks_waiting"] == 0
    assert q["model_calls"] == asked(server) == -(-chunks // 16) and q["questions_per_chunk"] == 2.0 and q["seconds"] > 0
    assert q["error"] is None and q["chunks_fallback"] == 0

    status = kb("status", "--kb", str(sample_kb), "--json", env=env)
    pool = json.loads(status.stdout)["question_pool"]
    assert pool == {"source": "model", "chunks_with_model_questions": chunks, "models": {"openai:fake-q": chunks}, "questions": 2 * chunks,
                    "chunks_fallback": 0, "chunks_without_model_questions": 0, "index_questions": False}
    human = kb("status", "--kb", str(sample_kb), env=env)
    assert f"question pool model: {chunks} / {chunks} chunks (openai:fake-q {chunks}) · {2 * chunks} questions" in " ".join(human.stdout.split())

    # a file edited: the human report names what the model wrote and what it cost
    page = sample_kb / "runbooks" / "rollback.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n## Afterwards\n\nTell the release channel that the rollback is done.\n", encoding="utf-8")
    res = kb("index", "--kb", str(sample_kb), "--questions", env=env)
    assert res.exit_code == 0, res.output
    line = next(ln for ln in res.stderr.splitlines() if "questions (openai:fake-q)" in ln)
    assert " chunks given 2.0 questions each · 1 model call in " in line and " s/call)" in line


def test_status_of_an_index_without_a_model_pool(sample_kb: Path) -> None:
    assert kb("index", "--kb", str(sample_kb)).exit_code == 0
    status = kb("status", "--kb", str(sample_kb), "--json")
    pool = json.loads(status.stdout)["question_pool"]
    assert pool["source"] == "headings" and pool["chunks_with_model_questions"] == 0 and pool["models"] == {}
    human = kb("status", "--kb", str(sample_kb))
    assert "question pool heading-derived (`kb index --questions` with a chat model writes model questions)" in " ".join(human.stdout.split())
