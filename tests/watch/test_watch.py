"""`kb index --watch` / `watch_index`: real edits, editor-style saves, renames and deletions on disk; the
index follows within the debounce window; ignore rules; Ctrl-C; kill -9 during an update."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kb_agent.index.build import build_index
from kb_agent.index.store import IndexReader
from kb_agent.index.watch import WatchUpdate, watch_index
from kb_agent.retrieval.tools import Retriever
from tests.support.sample import hash_settings, indexed_paths, kb_free_env

# generous: a loaded CI machine; the measured latency is in scripts/bench_watch.py
FOLLOW_TIMEOUT_S = 30.0


class Watcher:
    """`watch_index` in a thread, as the MCP server runs it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.settings = hash_settings(root)
        self.stop = threading.Event()
        self.updates: list[WatchUpdate] = []
        self.error: BaseException | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            watch_index(self.settings, on_update=self.updates.append, stop=self.stop, on_ready=self.ready.set)
        except BaseException as e:  # noqa: BLE001 - re-raised in the test
            self.error = e

    def __enter__(self) -> Watcher:
        self.thread.start()
        assert self.ready.wait(30), "the watcher did not start"
        self.wait_for(lambda: any(u.kind == "initial" for u in self.updates), "the initial sync")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(10)
        assert not self.thread.is_alive(), "watch_index did not stop"
        if self.error is not None and exc[0] is None:
            raise self.error

    def wait_for(self, cond: Callable[[], bool], what: str) -> float:
        started = time.monotonic()
        while time.monotonic() - started < FOLLOW_TIMEOUT_S:
            if self.error is not None:
                raise self.error
            if cond():
                return time.monotonic() - started
            time.sleep(0.05)
        raise AssertionError(f"the index did not follow within {FOLLOW_TIMEOUT_S} s: {what}; updates: {self.updates}")


def _searchable(root: Path, word: str) -> Callable[[], bool]:
    """Whether grep finds `word` and the chunk holding it has its vector stored (a fresh reader each
    time). Vector *ranking* is the model's business (the hash embedder ranks one-word queries poorly)."""

    def check() -> bool:
        with Retriever(hash_settings(root)) as r:
            if not r.grep(word) or r.index.catalog is None:
                return False
            ids = [cid for (cid,) in r.index.catalog.conn.execute("select id from chunks where text like ?", (f"%{word}%",)).fetchall()]
            return bool(ids) and r.index.store.existing(ids) == set(ids) and not r.index.catalog.pending_among(ids)

    return check


def _consistent(root: Path) -> tuple[int, int, int]:
    """(catalog chunks, pending, stored vectors)."""
    con = sqlite3.connect(root / ".kb" / "catalog.sqlite")
    chunks = con.execute("select count(*) from chunks").fetchone()[0]
    pending = con.execute("select count(*) from pending").fetchone()[0]
    con.close()
    r = IndexReader.open(hash_settings(root), root)
    try:
        return chunks, pending, r.store.count()
    finally:
        r.close()


@pytest.fixture
def watched(sample_kb: Path) -> Iterator[Watcher]:
    with Watcher(sample_kb) as w:
        yield w


def test_new_edited_and_deleted_files_are_followed(watched: Watcher) -> None:
    root = watched.root
    (root / "zebra.md").write_text("# Zebras\n\nThe quokkazebra grazes at dawn.\n", encoding="utf-8")
    watched.wait_for(_searchable(root, "quokkazebra"), "a new file")

    faq = root / "faq.md"
    faq.write_text(faq.read_text(encoding="utf-8") + "\n## Tapirs\n\nThe tapirfaq answer is 31337.\n", encoding="utf-8")
    watched.wait_for(_searchable(root, "tapirfaq"), "an edited file")

    (root / "glossary.md").unlink()
    watched.wait_for(lambda: "glossary.md" not in indexed_paths(root), "a deleted file")

    def kinds() -> list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
        return [(u.kind, u.report.indexed, u.report.updated, u.report.removed) for u in watched.updates if u.report]

    # each save was one update touching only its own path (the report is emitted after the commit readers see)
    watched.wait_for(lambda: ("update", (), (), ("glossary.md",)) in kinds(), "the deletion's report")
    assert ("update", ("zebra.md",), (), ()) in kinds() and ("update", (), ("faq.md",), ()) in kinds()
    assert all(u.error is None for u in watched.updates)


def test_editor_saves_through_temp_files_and_renames(watched: Watcher) -> None:
    root = watched.root
    target = root / "runbooks" / "rollback.md"
    old = target.read_text(encoding="utf-8")

    # vim: probe file 4913, backup `rollback.md~`, swap file, write the new text, remove the backup
    (root / "runbooks" / "4913").write_text("", encoding="utf-8")
    (root / "runbooks" / "4913").unlink()
    (root / "runbooks" / ".rollback.md.swp").write_bytes(b"\0swap")
    os.replace(target, root / "runbooks" / "rollback.md~")
    target.write_text(old + "\nvimsaved marker okapi\n", encoding="utf-8")
    (root / "runbooks" / "rollback.md~").unlink()
    (root / "runbooks" / ".rollback.md.swp").unlink()
    watched.wait_for(_searchable(root, "okapi"), "a vim-style save")

    # VS Code / JetBrains / most libraries: write a temp file next to it, then rename over it
    tmp = root / "runbooks" / "rollback.md.tmp"
    tmp.write_text(old + "\natomic saved marker narwhal\n", encoding="utf-8")
    os.replace(tmp, target)
    watched.wait_for(_searchable(root, "narwhal"), "a temp-file-and-rename save")
    watched.wait_for(lambda: not _searchable(root, "okapi")(), "the previous version gone")

    # a plain rename and a folder rename
    os.rename(root / "faq.md", root / "questions.md")
    watched.wait_for(lambda: {"questions.md"} <= indexed_paths(root) and "faq.md" not in indexed_paths(root), "a renamed file")
    os.rename(root / "adr", root / "decisions")
    watched.wait_for(lambda: not any(p.startswith("adr/") for p in indexed_paths(root)) and any(p.startswith("decisions/") for p in indexed_paths(root)), "a renamed folder")

    every_path = {p for u in watched.updates for p in u.paths}
    assert not any(p.endswith(("~", ".swp", ".tmp", "4913")) for p in every_path), every_path  # temp files never start an update
    chunks, pending, vectors = _consistent(root)
    watched.wait_for(lambda: _consistent(root)[1] == 0, "all vectors")
    chunks, pending, vectors = _consistent(root)
    assert vectors == chunks and pending == 0


def test_ignore_rules_hidden_folders_and_kb_itself(watched: Watcher) -> None:
    root = watched.root
    assert "drafts/unfinished-idea.md" not in indexed_paths(root)  # sample_kb's .kbignore
    (root / "drafts" / "another.md").write_text("# Draft\n\nignoreddraft wombat\n", encoding="utf-8")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret.md").write_text("# Secret\n\nhiddenwombat\n", encoding="utf-8")
    (root / "visible.md").write_text("# Visible\n\nvisiblewombat\n", encoding="utf-8")
    watched.wait_for(lambda: "visible.md" in indexed_paths(root), "a visible file")
    assert not {"drafts/another.md", ".hidden/secret.md"} & indexed_paths(root)

    kbignore = root / ".kbignore"
    kbignore.write_text("\n".join(line for line in kbignore.read_text(encoding="utf-8").splitlines() if "drafts" not in line) + "\n", encoding="utf-8")
    watched.wait_for(lambda: any(u.kind == "rescan" for u in watched.updates), "a rescan after the ignore rules changed")
    assert "drafts/another.md" in indexed_paths(root)
    assert ".hidden/secret.md" not in indexed_paths(root)
    # the watcher's own writes under .kb/ never start an update: it goes quiet
    n = len(watched.updates)
    time.sleep(1.5)
    assert len(watched.updates) == n, watched.updates[n:]


def test_cli_watch_reports_each_update_and_ctrl_c_exits_130(sample_kb: Path) -> None:
    env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "kb_agent", "index", "--watch", "--kb", str(sample_kb)], env=env, cwd=sample_kb.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not any("initial sync" in line for line in lines):
            time.sleep(0.1)
        assert any(line.startswith("watching ") for line in lines), lines
        assert any("initial sync: 57 new" in line for line in lines), lines
        (sample_kb / "ocelot.md").write_text("# Ocelot\n\nocelot facts\n", encoding="utf-8")
        while time.time() < deadline and not any("new ocelot.md" in line for line in lines):
            time.sleep(0.1)
        line = next(line for line in lines if "new ocelot.md" in line)
        assert "1 chunk" in line and line.rstrip().endswith(" s"), line
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(5)
    assert lines[-1].strip() == "interrupted", lines
    assert proc.stdout is not None and proc.stdout.read() == ""  # results only on stdout: a watch prints none
    assert not build_index(hash_settings(sample_kb), check=True).stale


def test_kill_9_during_an_update_leaves_a_consistent_index(sample_kb: Path) -> None:
    env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_EMBEDDING_BATCH_SIZE="1", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "kb_agent", "index", "--watch", "--kb", str(sample_kb)], env=env, cwd=sample_kb.parent,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "initial sync" in line:
                break
        batch = sample_kb / "batch"
        batch.mkdir()
        for i in range(300):
            (batch / f"n{i:03d}.md").write_text(f"# N {i}\n\nbatch fact {i} lemur{i}\n\n## More\n\n" + "words " * 30 + "\n", encoding="utf-8")
        cat = sample_kb / ".kb" / "catalog.sqlite"
        deadline = time.time() + 120
        seen = 0
        while time.time() < deadline and proc.poll() is None:
            con = sqlite3.connect(f"file:{cat}?mode=ro", uri=True, timeout=1)
            try:
                seen = con.execute("select count(*) from files where path like 'batch/%'").fetchone()[0]
            except sqlite3.Error:
                seen = 0
            finally:
                con.close()
            if seen >= 20:
                break
            time.sleep(0.02)
        assert proc.poll() is None and seen >= 20, "the update finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    chunks, pending, vectors = _consistent(sample_kb)
    assert vectors == chunks - pending  # whatever was committed is whole: no vector without its chunk
    rep = build_index(hash_settings(sample_kb))
    chunks, pending, vectors = _consistent(sample_kb)
    assert pending == 0 and vectors == chunks == rep.chunks_total
    assert {f"batch/n{i:03d}.md" for i in range(300)} <= indexed_paths(sample_kb)
