"""A long-running `kb mcp` and files that change under it: a stale index is reported (not an error), and a
re-index by another process is picked up without a restart — by grep and by the vector and hybrid tools."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kb_agent.mcp.freshness import FRESHNESS_INTERVAL_S
from tests.support.mcp_client import McpSession, server_env, structured, text_of
from tests.support.sample import copy_indexed

TOKEN = "zebracorn-4821"
NEW_TEXT = f"\n\n## Zebracorn procedure\n\nThe {TOKEN} switch drains the zebracorn queue before a rollback.\n"


@pytest.fixture
def kb(indexed_hash_kb: Path, tmp_path: Path) -> Path:
    return copy_indexed(indexed_hash_kb, tmp_path / "kb")


@pytest.fixture
def mcp(kb: Path) -> Iterator[McpSession]:
    with McpSession(kb, env=server_env(XDG_CONFIG_HOME=str(kb.parent / "xdg"))) as session:
        yield session


def _reindex(kb: Path) -> None:
    """`kb index` in another process, as a user or an editor hook would run it."""
    p = subprocess.run([sys.executable, "-m", "kb_agent", "index", "--kb", str(kb)], capture_output=True, text=True,
                       env=server_env(XDG_CONFIG_HOME=str(kb.parent / "xdg")), timeout=300)
    assert p.returncode == 0, p.stderr


def _paths(doc: dict[str, Any]) -> list[str]:
    return [h["path"] for h in doc["results"]]


def test_a_stale_index_is_reported_in_results_not_as_an_error(mcp: McpSession, kb: Path) -> None:
    first = structured(mcp.call("search", {"query": "rollback", "k": 3}))
    assert first["stale"] is False and first["stale_files"] == []
    with (kb / "runbooks" / "rollback.md").open("a", encoding="utf-8") as f:
        f.write(NEW_TEXT)
    (kb / "new-note.md").write_text("# New note\n\nwritten after the index\n", encoding="utf-8")
    (kb / "faq.md").unlink()
    time.sleep(FRESHNESS_INTERVAL_S + 0.2)  # the check runs at most every FRESHNESS_INTERVAL_S

    res = mcp.call("search", {"query": "rollback", "k": 3})
    doc = structured(res)
    assert doc["stale"] is True
    assert set(doc["stale_files"]) == {"runbooks/rollback.md", "new-note.md", "faq.md"}
    notes = [b.text for b in res.content[1:]]
    assert any(n.startswith("note: the index is stale: 1 new, 1 changed, 1 deleted files") for n in notes), notes
    assert res.meta["kb/freshness"]["stale"] is True

    ask = mcp.call("ask", {"question": "How do I roll back a deploy?"})
    assert not ask.is_error and "note: the index is stale" in text_of(ask)
    assert ask.meta["kb/freshness"]["stale_files"] == ["faq.md", "new-note.md", "runbooks/rollback.md"]
    assert "stale" not in ask.structured_content  # the document stays exactly `kb ask --json`

    listed = structured(mcp.call("files", {}))
    assert listed["stale"] is True

    strict = mcp.call("ask", {"question": "How do I roll back a deploy?", "require_fresh": True})
    assert strict.is_error
    assert text_of(strict) == "error: the index is stale: 1 new, 1 changed, 1 deleted files\nhint: run `kb index` first"

    status = structured(mcp.call("status"))
    assert status["index"] == "stale"


def test_a_reindex_by_another_process_is_seen_without_a_restart(mcp: McpSession, kb: Path) -> None:
    for tool in ("grep", "vector", "hybrid"):  # warm every tool first: each must notice the new index
        assert TOKEN not in str(structured(mcp.call("search", {"query": TOKEN, "tool": tool, "full_text": True}))["results"])
    before = structured(mcp.call("status"))["chunks"]

    with (kb / "runbooks" / "rollback.md").open("a", encoding="utf-8") as f:
        f.write(NEW_TEXT)
    _reindex(kb)

    grep = structured(mcp.call("search", {"query": TOKEN, "tool": "grep"}))
    assert grep["results"] and grep["results"][0]["path"] == "runbooks/rollback.md" and TOKEN in grep["results"][0]["snippet"]
    assert grep["stale"] is False
    vector = structured(mcp.call("search", {"query": f"{TOKEN} zebracorn procedure", "tool": "vector", "k": 3, "full_text": True}))
    assert any(TOKEN in h["text"] for h in vector["results"]), _paths(vector)
    hybrid = structured(mcp.call("search", {"query": TOKEN, "tool": "hybrid", "k": 3}))
    top = hybrid["results"][0]
    assert top["path"] == "runbooks/rollback.md" and "grep" in top["tool"] or TOKEN in top["snippet"]
    assert structured(mcp.call("status"))["chunks"] > before

    answer = structured(mcp.call("ask", {"question": f"What does the {TOKEN} switch do?"}))
    assert answer["answer_source"] == "kb" and any(c["path"] == "runbooks/rollback.md" for c in answer["citations"])
    assert TOKEN in answer["answer"] or any(TOKEN in c["quote"] for c in answer["citations"])

    # a deletion and a second re-index: the file is gone from every tool
    (kb / "runbooks" / "rollback.md").unlink()
    _reindex(kb)
    for tool in ("grep", "vector", "hybrid"):
        doc = structured(mcp.call("search", {"query": TOKEN, "tool": tool}))
        assert "runbooks/rollback.md" not in _paths(doc), tool
    assert "runbooks/rollback.md" not in [f["path"] for f in structured(mcp.call("files", {"limit": 500}))["files"]]


def test_an_index_built_after_the_server_started_is_picked_up(tmp_path: Path, indexed_hash_kb: Path) -> None:
    from tests.support.sample import copy_sample

    kb = copy_sample(tmp_path / "kb")
    with McpSession(kb, env=server_env(XDG_CONFIG_HOME=str(tmp_path / "xdg"))) as mcp:
        res = mcp.call("search", {"query": "rollback"})
        assert res.is_error and "no index in" in text_of(res) and "hint: run `kb index" in text_of(res)
        grep = structured(mcp.call("search", {"query": "cache.ttl_seconds", "tool": "grep"}))  # grep needs no index
        assert grep["results"]
        _reindex(kb)
        assert structured(mcp.call("search", {"query": "rollback"}))["results"]
