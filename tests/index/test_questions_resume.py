"""The question phase in real processes (issue 14): `kb index --questions` against an OpenAI-compatible
server on loopback, killed with SIGKILL half-way through its questions; search answers meanwhile, and
the next run asks only about the chunks no committed group covered."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.support.fake_openai import FakeOpenAI, Script
from tests.support.sample import kb_free_env


def _pool_and_chunks(root: Path) -> tuple[int, int]:
    """(chunks with a pool row, chunks) as a reader sees them; (0, 0) before the pool exists."""
    cat = root / ".kb" / "catalog.sqlite"
    if not cat.exists():
        return 0, 0
    try:
        con = sqlite3.connect(f"file:{cat}?mode=ro", uri=True, timeout=1)
        try:
            if con.execute("SELECT 1 FROM sqlite_master WHERE name='pool'").fetchone() is None:
                return 0, 0
            pooled = con.execute("SELECT count(*) FROM pool p JOIN chunks c ON c.id = p.id").fetchone()[0]
            chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0, 0
    return int(pooled), int(chunks)


def _kb(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kb_agent", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_kill_9_in_the_question_phase_then_the_next_run_asks_only_about_the_rest(sample_kb: Path, tmp_path: Path) -> None:
    with FakeOpenAI(Script(mode="delay", delay_s=0.6)) as server:
        env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_LLM_PROVIDER="openai", KB_LLM_BASE_URL=server.url, KB_LLM_MODEL="fake-q",
                          KB_ROOT=str(sample_kb), KB_QUESTIONS_BATCH_SIZE="8", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
        proc = subprocess.Popen([sys.executable, "-m", "kb_agent", "index", "--questions"], env=env, cwd=tmp_path,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 240
            pooled = chunks = 0
            while time.time() < deadline and proc.poll() is None:
                pooled, chunks = _pool_and_chunks(sample_kb)
                if pooled >= 16:  # two groups committed: the question phase is under way
                    break
                time.sleep(0.05)
            assert proc.poll() is None, "the run ended before the question phase could be interrupted"
            assert 16 <= pooled < chunks - 16, (pooled, chunks)

            # lexical and vectors are complete: search answers in full while the model writes
            found = _kb(["search", "nwctl deploy rollback", "--json", "-k", "3"], env, tmp_path)
            assert found.returncode == 0, found.stderr
            assert "vectors:" not in found.stderr
            assert json.loads(found.stdout)["results"][0]["path"].startswith(("runbooks/rollback.md", "reference/cli.md"))
        finally:
            proc.send_signal(signal.SIGKILL)  # killed in the question phase
            proc.wait()
        done, chunks = _pool_and_chunks(sample_kb)
        assert 0 < done < chunks
        server.script.delay_s = 0.0  # the slow replies only had to keep the first run in its question phase
        asked_before = sum(1 for r in server.requests if r.kind == "questions")

        status = _kb(["status", "--json"], env, tmp_path)
        pool = json.loads(status.stdout)["question_pool"]
        assert pool["source"] == "model" and pool["models"] == {"openai:fake-q": done} and pool["chunks_without_model_questions"] == chunks - done

        rerun = _kb(["index", "--questions", "--json"], env, tmp_path)
        assert rerun.returncode == 0, rerun.stderr
        report = json.loads(rerun.stdout)
        q = report["questions"]
        assert not report["indexed"] and not report["updated"] and report["chunks_embedded"] == 0
        assert q["chunks_asked"] + q["chunks_reused"] == chunks - done  # nothing committed is asked again
        assert q["chunks_waiting"] == 0 and q["error"] is None and q["model"] == "openai:fake-q"
        assert q["model_calls"] == sum(1 for r in server.requests if r.kind == "questions") - asked_before
        assert _pool_and_chunks(sample_kb) == (chunks, chunks)

        again = _kb(["index", "--questions", "--json"], env, tmp_path)
        assert json.loads(again.stdout)["questions"]["model_calls"] == 0
