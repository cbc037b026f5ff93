"""Lexical first, vectors streaming in: readers during an unfinished index (real processes), resuming
after kill -9 in the vector phase, the generation number and `IndexReader.refresh`."""

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

from kb_agent.index.build import build_index
from kb_agent.index.store import IndexReader
from kb_agent.retrieval.tools import Retriever
from tests.support.sample import hash_settings, kb_free_env

N_NOTES = 400


def _make_notes(root: Path, n: int = N_NOTES) -> None:
    root.mkdir(parents=True)
    for i in range(n):
        (root / f"note-{i:04d}.md").write_text(
            f"# Note {i}\n\nFact number {i}: the value of key.k{i} is {i * 7}.\n\n## Details\n\n" + "filler words " * 40 + "\n",
            encoding="utf-8",
        )


def _catalog_counts(root: Path) -> tuple[int, int, int]:
    """(files, chunks, pending) as a reader sees them; (0, 0, 0) before the catalog exists."""
    cat = root / ".kb" / "catalog.sqlite"
    if not cat.exists():
        return 0, 0, 0
    try:
        con = sqlite3.connect(f"file:{cat}?mode=ro", uri=True, timeout=1)
        try:
            files = con.execute("select count(*) from files").fetchone()[0]
            chunks = con.execute("select count(*) from chunks").fetchone()[0]
            has = con.execute("select 1 from sqlite_master where name='pending'").fetchone()
            pending = con.execute("select count(*) from pending").fetchone()[0] if has else chunks
        finally:
            con.close()
    except sqlite3.Error:
        return 0, 0, 0
    return int(files), int(chunks), int(pending)


def _stop_between_writes(proc: subprocess.Popen[bytes], root: Path) -> bool:
    """SIGSTOP the writer at a moment it holds no lock on the vector store's SQLite file.

    Chroma's embedded store uses a rollback journal: a process stopped holding any lock on it, even
    a read's, keeps a new client from starting (a real `kill -9` releases the lock, a stopped process
    does not; readers then search without vectors, see test_a_reader_does_not_wait_for_a_locked_store).
    Stop, probe with BEGIN EXCLUSIVE, and let it run on if it was caught holding a lock."""
    proc.send_signal(signal.SIGSTOP)
    con = sqlite3.connect(root / ".kb" / "chroma" / "chroma.sqlite3", timeout=0.05, isolation_level=None)
    try:
        con.execute("BEGIN EXCLUSIVE")
        con.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        proc.send_signal(signal.SIGCONT)
        return False
    finally:
        con.close()


def _vector_count(root: Path) -> int:
    r = IndexReader.open(hash_settings(root), root)
    try:
        return r.store.count()
    finally:
        r.close()


def _kb(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kb_agent", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=180)


def test_search_and_ask_during_an_unfinished_index_then_resume_after_kill_9(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    _make_notes(root)
    # one chunk per embedding batch keeps the vector phase long enough to stop it in the middle
    env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_EMBEDDING_BATCH_SIZE="1", KB_ROOT=str(root))
    proc = subprocess.Popen([sys.executable, "-m", "kb_agent", "index"], env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 180
        files = chunks = pending = 0
        while time.time() < deadline and proc.poll() is None:
            files, chunks, pending = _catalog_counts(root)
            if files == N_NOTES and 0 < pending < chunks - 20:  # lexical phase done, vectors streaming in
                if _stop_between_writes(proc, root):
                    break
            time.sleep(0.02)
        assert proc.poll() is None, "the index finished before it could be stopped; make the corpus bigger"
        assert files == N_NOTES and 0 < pending < chunks, (files, chunks, pending)

        # the writer is alive, holds the lock and is half-way through its vectors: readers do not wait
        grep = _kb(["search", "--tool", "grep", "key.k321", "--json"], env, tmp_path)
        assert grep.returncode == 0, grep.stderr
        assert json.loads(grep.stdout)["results"][0]["path"] == "note-0321.md"
        assert "vectors:" not in grep.stderr  # grep needs no vectors

        hybrid = _kb(["search", "Fact number 321", "-k", "3"], env, tmp_path)
        assert hybrid.returncode == 0, hybrid.stderr
        assert "note-0321.md" in hybrid.stdout
        embedded = chunks - pending
        assert hybrid.stderr.count("vectors: ") == 1, hybrid.stderr  # said once
        notice = next(line for line in hybrid.stderr.splitlines() if "vectors: " in line)
        assert f"/ {chunks:,} embedded; run `kb index` to finish" in notice
        assert int(notice.split("vectors: ")[1].split(" /")[0].replace(",", "")) >= embedded

        ask = _kb(["ask", "What is the value of key.k321?"], env, tmp_path)
        assert ask.returncode == 0, ask.stderr
        assert "note-0321.md:L" in ask.stdout and "2247" in ask.stdout

        status = _kb(["status", "--json"], env, tmp_path)
        st = json.loads(status.stdout)
        assert st["chunks"] == chunks and 0 < st["vectors_pending"] <= pending and st["vectors_embedded"] == chunks - st["vectors_pending"]
    finally:
        proc.send_signal(signal.SIGKILL)  # killed in the vector phase
        proc.wait()

    # the rerun embeds only what is left and ends with exactly one vector per catalog chunk
    _files, chunks, left = _catalog_counts(root)
    rep = build_index(hash_settings(root))
    assert rep.unchanged == N_NOTES and not rep.indexed and not rep.updated
    assert 0 < rep.chunks_embedded <= left and rep.chunks_pending == 0
    assert _catalog_counts(root) == (N_NOTES, chunks, 0)
    assert _vector_count(root) == chunks == rep.chunks_total
    again = build_index(hash_settings(root))
    assert again.chunks_embedded == 0 and not again.stale


def test_lexical_phase_alone_answers_grep_and_vector_search_falls_back(sample_kb: Path) -> None:
    s = hash_settings(sample_kb)
    rep = build_index(s, should_pause=lambda: True)  # stop before the first embedding batch
    assert rep.chunks_embedded == 0 and rep.chunks_pending == rep.chunks_total > 0
    with Retriever(s) as r:
        assert r.index.vector_coverage() == (0, rep.chunks_total)
        assert r.grep("cache.ttl_seconds")[0].path == "reference/config.md"
        hits = r.vector("how long do cache entries live")  # no vector yet: grep answers instead
        assert hits and all(h.tool != "vector" for h in hits)
        assert any(n.startswith(f"vectors: 0 / {rep.chunks_total:,} embedded; run `kb index` to finish") for n in r.notices), r.notices
        hybrid = r.hybrid("cache.ttl_seconds")
        assert hybrid and hybrid[0].path == "reference/config.md"
    done = build_index(s)
    assert done.chunks_embedded == rep.chunks_total and done.chunks_pending == 0


def test_refresh_sees_what_another_process_committed(sample_kb: Path) -> None:
    s = hash_settings(sample_kb)
    batches = iter(range(3))
    first = build_index(s, should_pause=lambda: next(batches, None) is None)  # three batches, then stop
    assert 0 < first.chunks_pending < first.chunks_total
    r = Retriever(s)
    try:
        gen = r.index.generation()
        assert r.refresh() is False and r.index.generation() == gen  # nothing moved
        embedded, total = r.index.vector_coverage()
        assert embedded == first.chunks_total - first.chunks_pending and total == first.chunks_total
        assert r.vector("release process")  # opens Chroma in this process with the vectors so far

        # another process finishes the vectors and adds a file
        (sample_kb / "zebra.md").write_text("# Zebras\n\nZebras graze on the savanna at dawn near the quokka hut.\n", encoding="utf-8")
        env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_ROOT=str(sample_kb))
        done = _kb(["index"], env, sample_kb.parent)
        assert done.returncode == 0, done.stderr

        assert r.index.generation() > gen  # cheap, without refreshing
        assert r.refresh() is True
        assert r.index.vector_coverage() == (first.chunks_total + 1, first.chunks_total + 1)
        hits = r.vector("Zebras graze on the savanna at dawn near the quokka hut.", k=1)
        assert hits[0].path == "zebra.md" and hits[0].tool == "vector" and hits[0].score > 0.5
        assert "zebra.md" in r.index.indexed_paths()
        assert r.refresh() is False
        r.notices.clear()
        r.vector("release process")
        assert not r.notices  # complete: nothing to say
    finally:
        r.close()


def test_refresh_follows_a_deleted_and_rebuilt_index(sample_kb: Path) -> None:
    import shutil

    s = hash_settings(sample_kb)
    build_index(s)
    r = IndexReader.open(s, sample_kb)
    try:
        assert "faq.md" in r.indexed_paths()
        shutil.rmtree(sample_kb / ".kb")
        (sample_kb / "faq.md").unlink()
        build_index(s)
        assert r.refresh() is True  # a new catalog file, although its generation may look the same
        assert "faq.md" not in r.indexed_paths() and r.store.count() == r.vector_coverage()[1]
    finally:
        r.close()


def test_a_reader_never_creates_the_vector_store(sample_kb: Path) -> None:
    import shutil

    s = hash_settings(sample_kb)
    build_index(s)
    shutil.rmtree(sample_kb / ".kb" / "chroma")
    with Retriever(s) as r:
        hits = r.hybrid("cache.ttl_seconds")
        assert hits and hits[0].path == "reference/config.md"
        assert any("does not exist yet" in n for n in r.notices), r.notices
    assert not (sample_kb / ".kb" / "chroma").exists()


def test_a_reader_does_not_wait_for_a_locked_store(sample_kb: Path, tmp_path: Path) -> None:
    """Another process holding even a read lock on Chroma's SQLite file (a `kb index` stopped with
    Ctrl-Z) kept `kb search` waiting for as long as it held it; now it searches without vectors."""
    build_index(hash_settings(sample_kb))
    env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_ROOT=str(sample_kb))
    holder = sqlite3.connect(sample_kb / ".kb" / "chroma" / "chroma.sqlite3", isolation_level=None)
    try:
        holder.execute("BEGIN")
        assert holder.execute("select count(*) from embeddings").fetchone()[0] > 0  # a shared lock, kept
        t0 = time.monotonic()
        hybrid = _kb(["search", "cache.ttl_seconds", "-k", "3", "--json"], env, tmp_path)
        assert hybrid.returncode == 0, hybrid.stderr
        assert json.loads(hybrid.stdout)["results"][0]["path"] == "reference/config.md"
        assert "is locked by another process" in hybrid.stderr
        assert time.monotonic() - t0 < 60  # it waited LOCK_WAIT_S, not for the lock to go
        status = _kb(["status", "--json"], env, tmp_path)
        assert status.returncode == 0, status.stderr
        assert "locked by another process" in json.loads(status.stdout)["vector_store_answers"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    again = _kb(["search", "cache.ttl_seconds", "-k", "3"], env, tmp_path)
    assert again.returncode == 0 and "locked" not in again.stderr, again.stderr


def test_an_index_from_before_the_pending_table_reads_as_complete(sample_kb: Path) -> None:
    s = hash_settings(sample_kb)
    rep = build_index(s)
    con = sqlite3.connect(sample_kb / ".kb" / "catalog.sqlite")
    con.execute("drop table pending")
    con.execute("delete from meta where key='generation'")
    con.commit()
    con.close()
    with Retriever(s) as r:
        assert r.index.vector_coverage() == (rep.chunks_total, rep.chunks_total)
        assert r.index.generation() == 0
        assert r.vector("how do I roll back a deploy")[0].tool == "vector" and not r.notices
    assert not build_index(s).stale  # the writer adds the table back, nothing to embed


@pytest.mark.skipif(os.name != "posix", reason="SIGINT semantics")
def test_ctrl_c_in_the_vector_phase_keeps_every_committed_batch(sample_kb: Path) -> None:
    s = hash_settings(sample_kb)
    calls = iter(range(4))

    def interrupt() -> bool:
        if next(calls, None) is None:
            raise KeyboardInterrupt
        return False

    with pytest.raises(KeyboardInterrupt):
        build_index(s, should_pause=interrupt)
    _files, chunks, pending = _catalog_counts(sample_kb)
    assert 0 < pending < chunks
    assert _vector_count(sample_kb) == chunks - pending  # stored == recorded: the lock was released too
    rep = build_index(s)
    assert rep.chunks_embedded == pending and _vector_count(sample_kb) == chunks


def test_check_mode_reports_chunks_without_vectors(sample_kb: Path) -> None:
    from typer.testing import CliRunner

    from kb_agent.cli import app

    s = hash_settings(sample_kb)
    rep = build_index(s, should_pause=lambda: True)
    check = build_index(s, check=True)
    assert not check.stale and check.chunks_pending == rep.chunks_pending > 0
    env = {"KB_EMBEDDING_PROVIDER": "hash"}
    res = CliRunner().invoke(app, ["index", "--check", "--kb", str(sample_kb)], env=env)
    assert res.exit_code == 3 and "chunks have no vector yet" in res.output, res.output
    build_index(s)
    res = CliRunner().invoke(app, ["index", "--check", "--kb", str(sample_kb)], env=env)
    assert res.exit_code == 0 and "index is fresh" in res.output, res.output


def test_an_update_embeds_its_own_files_before_the_backlog(sample_kb: Path) -> None:
    from kb_agent.index.build import update_index

    s = hash_settings(sample_kb)
    build_index(s, should_pause=lambda: True)  # every chunk pending: a long first embedding in progress
    last = "zh/术语表.md"  # last in KB order
    (sample_kb / last).write_text((sample_kb / last).read_text(encoding="utf-8") + "\n## 新词\n\n斑马测试词。\n", encoding="utf-8")
    batches = iter(range(1))
    rep = update_index(s, [last], should_pause=lambda: next(batches, None) is None)  # one batch, then new events
    assert rep.updated == (last,) and rep.chunks_pending > 0
    r = IndexReader.open(s, sample_kb)
    try:
        assert r.catalog is not None
        ids = r.catalog.chunk_ids(last)
        assert ids and not r.catalog.pending_among(ids) and r.store.existing(ids) == set(ids)
        assert r.catalog.pending_among(r.catalog.chunk_ids("README.md"))  # the backlog waits
    finally:
        r.close()
