"""`kb check` end to end: a real (hash-embedded) index of a sample_kb copy, the real Engine, CliRunner."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb_agent.cli import app

runner = CliRunner()
SPEC = "kb-checks.yaml"


def kb_check(*args: str) -> object:
    return runner.invoke(app, ["check", *args])


def test_sample_spec_passes_and_is_byte_identical(kb: Path) -> None:
    first = kb_check("--format", "json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["ok"] is True and data["deterministic"] is True and data["spec"] == SPEC
    assert data["summary"]["failed"] == 0 and data["summary"]["total"] >= 15
    assert "duration_s" not in data and "duration_ms" not in data["checks"][0]
    second = kb_check("--format", "json")
    assert second.stdout == first.stdout


def test_human_output_for_a_pass(kb: Path) -> None:
    result = kb_check("--only", "runbook-redis-sentinel-master")
    assert result.exit_code == 0
    assert result.stdout == (
        "kb check kb-checks.yaml (offline, deterministic)\n"
        "PASS  runbook-redis-sentinel-master  What is the Sentinel master name of our Redis cache?\n"
        "\n"
        "1 passed, 0 failed (1 checks)\n"
    )


def reindex(root: Path) -> None:
    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    build_index(Settings(root=root, embedding_provider="hash", llm_provider="none"))


def spec_line(root: Path, check_id: str, text: str) -> int:
    """The line of `text` inside check `check_id` of the sample spec."""
    lines = (root / SPEC).read_text(encoding="utf-8").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == f"- id: {check_id}")
    return next(i for i, ln in enumerate(lines[start:], start + 1) if text in ln)


def test_removed_fact_fails_at_the_contains_line(kb: Path) -> None:
    doc = kb / "runbooks" / "rotate-db-credentials.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("rotated every 90 days", "rotated every 180 days"), encoding="utf-8")
    reindex(kb)
    result = kb_check("--only", "runbook-db-password-rotation")
    assert result.exit_code == 1
    line = spec_line(kb, "runbook-db-password-rotation", "contains: 90 days")
    lines = result.stdout.splitlines()
    assert lines[1].startswith("FAIL  runbook-db-password-rotation  How often")
    assert lines[2] == f"      kb-checks.yaml:{line}: contains: '90 days' is not in the answer or its cited lines"
    assert lines[3].startswith("      cited: runbooks/rotate-db-credentials.md:L")
    assert lines[-1] == "0 passed, 1 failed (1 checks)"


def test_moved_file_fails_cites_with_github_annotations(kb: Path) -> None:
    (kb / "ops").mkdir()
    shutil.move(kb / "runbooks" / "kafka-consumer-lag.md", kb / "ops" / "kafka-consumer-lag.md")
    result = kb_check("--index", "--only", "runbook-kafka-lag-alert", "--format", "github")
    assert result.exit_code == 1
    line = spec_line(kb, "runbook-kafka-lag-alert", "cites: runbooks/kafka-consumer-lag.md")
    error, notice, summary = result.stdout.splitlines()[-3:]
    assert error.startswith(f"::error file=kb-checks.yaml,line={line},title=kb check runbook-kafka-lag-alert%3A cites::")
    assert "::expected a citation matching 'runbooks/kafka-consumer-lag.md'; cited ops/kafka-consumer-lag.md" in error
    assert notice.startswith("::notice file=ops/kafka-consumer-lag.md,line=")
    assert summary == "kb check kb-checks.yaml (offline, deterministic): 0 passed, 1 failed (1 checks)"


def test_stale_index_exits_3_unless_index(kb: Path) -> None:
    doc = kb / "faq.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    stale = kb_check("--only", "faq-staging-api-key")
    assert stale.exit_code == 3
    assert stale.stdout == ""
    assert "the index is stale (0 new, 1 changed, 0 deleted; e.g. faq.md)" in stale.stderr
    fresh = kb_check("--only", "faq-staging-api-key", "--index")
    assert fresh.exit_code == 0, fresh.output


def test_no_index_exits_3(plain_kb: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("KB_EMBEDDING_PROVIDER", "hash")
    result = kb_check()
    assert result.exit_code == 3
    assert "no index in" in result.stderr


def test_bad_spec_exits_2_with_file_and_line(kb: Path) -> None:
    (kb / "bad.yaml").write_text("checks:\n  - id: a\n    question: q\n    contain: x\n", encoding="utf-8")
    result = kb_check("bad.yaml")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "bad.yaml:4: check: unknown key 'contain'" in result.stderr
    assert "did you mean 'contains'?" in result.stderr
    (kb / "syntax.yaml").write_text("checks:\n  - id: a\n    question: 'unterminated\n", encoding="utf-8")
    result = kb_check("syntax.yaml")
    assert result.exit_code == 2
    assert "syntax.yaml:4: YAML syntax error" in result.stderr
    (kb / "noq.yaml").write_text("checks:\n  - id: a\n  - id: b\n    question: q\n", encoding="utf-8")
    result = kb_check("noq.yaml")
    assert result.exit_code == 2
    assert "noq.yaml:2: check 'a' has no `question`" in result.stderr


def test_bad_spec_beats_stale_index(kb: Path) -> None:
    (kb / "faq.md").write_text("# changed\n", encoding="utf-8")
    (kb / "bad.yaml").write_text("checks: 3\n", encoding="utf-8")
    assert kb_check("bad.yaml").exit_code == 2


def test_junit_parses_and_repeats(kb: Path, tmp_path: Path) -> None:
    (kb / "mixed.yaml").write_text(
        "checks:\n"
        "  - id: ttl\n    question: What's the default TTL for entries in the cache?\n    cites: reference/config.md\n"
        "  - id: wrong-file\n    question: What is the Sentinel master name of our Redis cache?\n    cites: faq.md\n"
        "  - id: wifi\n    question: What is the office wifi password?\n    not_found: true\n",
        encoding="utf-8",
    )
    out = tmp_path / "report.xml"
    result = kb_check("mixed.yaml", "-f", "junit", "-o", str(out))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "2 passed, 1 failed (3 checks)"  # human summary on stdout
    body = out.read_bytes()
    root = ET.fromstring(body)
    suite = root[0]
    assert (root.get("tests"), root.get("failures"), suite.get("name")) == ("3", "1", "mixed.yaml")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert list(cases) == ["ttl", "wrong-file", "wifi"]
    failure = cases["wrong-file"].find("failure")
    assert failure is not None and failure.get("type") == "cites"
    assert failure.get("message", "").startswith("cites: expected a citation matching 'faq.md'; cited runbooks/redis-failover.md")
    assert cases["wrong-file"].get("line") == "5" and "time" not in cases["ttl"].attrib
    kb_check("mixed.yaml", "-f", "junit", "-o", str(out))
    assert out.read_bytes() == body
    timed = kb_check("mixed.yaml", "-f", "junit", "--timings")
    assert ET.fromstring(timed.stdout.encode())[0].find("testcase").get("time") is not None  # type: ignore[union-attr]


def test_default_spec_is_in_the_kb_root(kb: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    result = kb_check("--kb", str(kb), "--only", "not-found-wifi-password")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("kb check kb/kb-checks.yaml (offline, deterministic)\n")


@pytest.mark.slow
def test_sample_spec_passes_with_the_real_embedding_model(indexed_e5_kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(indexed_e5_kb)
    result = kb_check("--format", "github")
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("(offline, deterministic): 23 passed, 0 failed (23 checks)\n")


def test_same_bytes_across_processes_and_hash_seeds(kb: Path) -> None:
    import os
    import subprocess
    import sys

    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "KB_EMBEDDING_PROVIDER": "hash"}
        argv = [sys.executable, "-m", "kb_agent", "check", "-f", "json", "--only", "zh-ops-2188-double-charge", "--only", "not-found-datadog", "--only", "find-oncall-handoff-doc"]
        proc = subprocess.run(argv, cwd=kb, env=env, capture_output=True, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr.decode()
        outs.append(proc.stdout)
    assert outs[0] == outs[1]
