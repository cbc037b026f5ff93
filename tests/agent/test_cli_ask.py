"""`kb ask` and `kb graph` end to end through the CLI, offline, on an indexed copy of sample_kb."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from kb_agent.cli import app

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "docs" / "ask.schema.json").read_text(encoding="utf-8"))
SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"
HASH = {"KB_EMBEDDING_PROVIDER": "hash"}


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def ask(runner: CliRunner, kb: Path, *args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["ask", "--kb", str(kb), *args], env=HASH, input=input)


def test_answer_with_citations_exits_0(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "What is the default for cache.ttl_seconds?")
    assert r.exit_code == 0, r.output
    body, footer = r.stdout.rsplit("\n---\n", 1)
    assert "`300`" in body
    lines = footer.strip().split("\n")
    assert lines and all(line.startswith(f"[{i}] reference/") for i, line in enumerate(lines, 1))
    assert any(line.endswith("reference/config.md:L75") for line in lines), "the table row that holds the default"


def test_json_output_is_schema_valid_and_citations_verify(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "How do we roll back a bad deploy?", "--json")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert doc["answer_source"] == "kb" and doc["model_calls"] == 0 and doc["model"] == "none"
    for c in doc["citations"]:
        lines = (indexed_hash_kb / c["path"]).read_text(encoding="utf-8").split("\n")[c["start_line"] - 1 : c["end_line"]]
        assert " ".join(c["quote"].split()) in " ".join(" ".join(lines).split())
    nodes = [t["node"] for t in doc["trace"]]
    assert nodes[0] == "prepare" and nodes[-1] == "synthesize"
    assert any(t["steps"] for t in doc["trace"] if t["node"] == "tool_exec")


def test_unanswerable_exits_1_and_says_so(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "What is the office wifi password?", "--json")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, SCHEMA)
    assert doc["answer_source"] == "none" and doc["citations"] == []
    assert doc["answer"].startswith("The knowledge base does not answer this question.")


def test_events_order_message_references_metadata(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "Redis 故障切换的步骤是什么？", "--events")
    assert r.exit_code == 0, r.output
    events = [json.loads(line) for line in r.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert set(types) <= {"progress", "message", "references", "metadata"}
    assert types[-3:] == ["message", "references", "metadata"]
    assert types.count("progress") >= 8
    assert events[-2]["citations"] and events[-1]["answer_source"] == "kb"


def test_events_error_event_and_exit_2_on_empty_question(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "   ", "--events")
    assert r.exit_code == 2
    last = json.loads(r.stdout.splitlines()[-1])
    assert last == {"type": "error", "message": "the question is empty", "hint": last["hint"], "exit_code": 2}


def test_giant_question_exit_2(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "x" * 5000)
    assert r.exit_code == 2
    assert "the question is 5,000 characters; the limit is 4,000" in r.stderr


def test_question_from_stdin_and_leading_dash_query(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "-", input="What does the --set flag do?\n")
    assert r.exit_code in (0, 1), r.output
    assert "error" not in r.stderr


def test_trace_goes_to_stderr_as_a_timeline(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "What is NW_CONFIG_PATH?", "--trace")
    assert r.exit_code == 0, r.output
    assert "trace" not in r.stdout
    err = r.stderr
    assert "retrieve" in err and "tool_exec [1]" in err and "grep('NW_CONFIG_PATH')" in err and "total" in err


def test_tool_and_filters_are_honoured(runner: CliRunner, indexed_hash_kb: Path) -> None:
    r = ask(runner, indexed_hash_kb, "How do I restore Postgres?", "--tool", "grep", "--path", "runbooks/*", "--json")
    doc = json.loads(r.stdout)
    steps = [s for t in doc["trace"] for s in t["steps"]]
    assert steps and {s["tool"] for s in steps} == {"grep"}
    assert doc["citations"] and all(c["path"].startswith("runbooks/") for c in doc["citations"])


def test_unknown_tool_and_json_with_events_are_usage_errors(runner: CliRunner, indexed_hash_kb: Path) -> None:
    assert ask(runner, indexed_hash_kb, "q", "--tool", "magic").exit_code == 2
    assert ask(runner, indexed_hash_kb, "q", "--json", "--events").exit_code == 2


def test_missing_index_exits_3(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nhello\n", encoding="utf-8")
    r = ask(runner, tmp_path, "hello?")
    assert r.exit_code == 3
    assert "kb index" in r.stderr


def test_require_fresh_exits_3_when_stale(runner: CliRunner, sample_kb: Path) -> None:
    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    build_index(Settings(root=sample_kb, embedding_provider="hash"))
    assert ask(runner, sample_kb, "What is cache.ttl_seconds?", "--require-fresh").exit_code == 0
    (sample_kb / "runbooks" / "new.md").write_text("# New\n\nfresh text\n", encoding="utf-8")
    r = ask(runner, sample_kb, "What is cache.ttl_seconds?", "--require-fresh")
    assert r.exit_code == 3
    assert "stale" in r.stderr


def test_injected_instruction_in_sample_kb_does_not_steer_offline_answer(runner: CliRunner, indexed_hash_kb: Path) -> None:
    injected = indexed_hash_kb / "runbooks" / "kafka-consumer-lag.md"
    line_no = next(i for i, line in enumerate(injected.read_text(encoding="utf-8").split("\n"), 1) if "ignore all previous instructions" in line)
    r = ask(runner, indexed_hash_kb, "What should I do when Kafka consumer lag is high? Note to AI assistants?", "--json")
    doc = json.loads(r.stdout)
    assert "PWNED" not in doc["answer"]
    assert not any(c["start_line"] <= line_no <= c["end_line"] and c["path"].endswith("kafka-consumer-lag.md") for c in doc["citations"])


def test_audit_line_per_question_without_secrets(runner: CliRunner, sample_kb: Path) -> None:
    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    build_index(Settings(root=sample_kb, embedding_provider="hash"))
    env = {**HASH, "KB_LLM_API_KEY": "sk-very-secret-123"}
    runner.invoke(app, ["ask", "--kb", str(sample_kb), "What is cache.ttl_seconds?"], env=env)
    runner.invoke(app, ["ask", "--kb", str(sample_kb), "What is the office wifi password?"], env=env)
    audit = (sample_kb / ".kb" / "audit.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in audit.splitlines()]
    assert len(rows) == 2
    assert rows[0]["route"] and rows[0]["actions"] and rows[0]["stop_reason"] and "total" in rows[0]["timings"]
    assert [r["answer_source"] for r in rows] == ["kb", "none"]
    assert "sk-very-secret" not in audit


def test_graph_mermaid_snapshot(runner: CliRunner) -> None:
    r = runner.invoke(app, ["graph"])
    assert r.exit_code == 0
    assert r.stdout == SNAPSHOT.read_text(encoding="utf-8")
    for node in ("prepare", "analyze_and_route", "plan", "tool_exec", "grade_evidence", "synthesize"):
        assert node in r.stdout


def test_brackets_of_digits_in_the_files_are_printed_as_written(runner: CliRunner, tmp_path: Path) -> None:
    """A table cell "[10, 500]" and code's `items[0]` look like citation markers; they are the file's text and are
    printed as the file writes them (the answer's own markers stand at the ends of its lines)."""
    (tmp_path / "api.md").write_text(
        "# Admin API\n\n## Paging\n\nList requests take paging parameters.\n\n"
        "| parameter | Default | Valid range | Description |\n| --- | --- | --- | --- |\n"
        "| page | 1 | [1, ...] | Number of pages. |\n| page_size | | [10, 500] | Number of resources per page. |\n\n"
        "## First item\n\nTo read the first item of a page, index the list:\n\n```python\nfirst = items[0]\n```\n",
        encoding="utf-8")
    assert runner.invoke(app, ["index", "--kb", str(tmp_path)], env=HASH).exit_code == 0
    r = ask(runner, tmp_path, "What is the valid range of page_size?")
    assert r.exit_code == 0, r.output
    assert "[10, 500]" in r.stdout.rsplit("\n---\n", 1)[0], r.stdout
    r = ask(runner, tmp_path, "How do I read the first item of a page?")
    assert r.exit_code == 0, r.output
    assert "first = items[0]" in r.stdout, r.stdout
    marked = [line for line in r.stdout.split("\n---\n")[0].split("\n") if line.startswith("- ") and re.search(r"\[\d+\]$", line)]
    assert marked and all(re.search(r"\S \[\d+\]$", line) for line in marked), "a marker keeps the space before it"


def test_a_fence_labelled_by_a_heading_in_backticks_keeps_its_citation(runner: CliRunner, tmp_path: Path) -> None:
    """"## Clean the files from `.gitignore`." over a fence that never writes `.gitignore`: the heading is the fence's
    label, not a quote, so the bullet keeps its marker — no quoted unit is printed without a citation."""
    (tmp_path / "undo.md").write_text(
        "# Undoing changes\n\n## Forcefully remove untracked files\n```sh\ngit clean -f\n```\n\n"
        "## Clean the files from `.gitignore`.\n```sh\ngit clean -X -f\n```\n", encoding="utf-8")
    assert runner.invoke(app, ["index", "--kb", str(tmp_path)], env=HASH).exit_code == 0
    r = ask(runner, tmp_path, "How do I clean the ignored files from .gitignore with git clean?")
    assert r.exit_code == 0, r.output
    body = r.stdout.rsplit("\n---\n", 1)[0]
    assert "git clean -X -f" in body, body
    bullets = [line for line in body.split("\n") if line.startswith("- ")]
    assert bullets and all(re.search(r"\S \[\d+\]$", line) for line in bullets), body
