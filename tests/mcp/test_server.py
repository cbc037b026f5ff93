"""`kb mcp` over stdio, as a real subprocess driven by the SDK's client: tool listing and schemas, every
tool's content, protocol errors for bad arguments, error results for failures, resources, path traversal.

One server per module serves the read-only tests (a start costs seconds); tests that change the KB
start their own (tests/mcp/test_freshness.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from kb_agent.mcp.specs import MAX_K, MAX_READ_LINES
from tests.support.mcp_client import McpSession, server_env, structured, text_of
from tests.support.sample import REPO, copy_sample, hash_settings

ASK_SCHEMA = json.loads((REPO / "docs" / "ask.schema.json").read_text(encoding="utf-8"))
TOOLS = {"search", "ask", "read", "files", "related", "status"}
LONG_LINES = MAX_READ_LINES + 150


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_kb plus a long file, indexed with the hash embedder; next to it, a secret outside the KB and
    symlinks, a FIFO and a dotfile inside it that `read` must refuse."""
    from kb_agent.index.build import build_index

    base = tmp_path_factory.mktemp("mcpkb")
    root = copy_sample(base / "kb")
    (root / "long.md").write_text("# Long\n\n" + "\n".join(f"line {i} of the long file" for i in range(3, LONG_LINES + 1)) + "\n", encoding="utf-8")
    build_index(hash_settings(root))
    (base / "secret.md").write_text("# Secret\n\nthe outside secret\n", encoding="utf-8")
    (root / "escape.md").symlink_to(base / "secret.md")
    (root / "catalog-link.md").symlink_to(root / ".kb" / ".gitignore")
    (root / ".env").write_text("KB_LLM_API_KEY=sk-not-for-you\n", encoding="utf-8")
    (root / "notes.txt").write_text("not markdown\n", encoding="utf-8")
    os.mkfifo(root / "pipe.md")
    build_index(hash_settings(root))  # the symlink into .kb/ is discovered and indexed: fresh again
    return root


@pytest.fixture(scope="module")
def mcp(kb: Path) -> Iterator[McpSession]:
    with McpSession(kb, env=server_env(XDG_CONFIG_HOME=str(kb.parent / "xdg"))) as session:
        yield session


def _file_lines(kb: Path, path: str, start: int, end: int) -> list[str]:
    return (kb / path).read_text(encoding="utf-8").split("\n")[start - 1 : end]


# ---------------------------------------------------------------- listing


def test_lists_the_six_tools_with_valid_schemas_written_for_a_model(mcp: McpSession) -> None:
    tools = {t.name: t for t in mcp.run(lambda c: c.list_tools()).tools}
    assert set(tools) == TOOLS
    for t in tools.values():
        Draft202012Validator.check_schema(t.input_schema)
        Draft202012Validator.check_schema(t.output_schema)
        schema = t.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema.get("required", [])) <= set(schema["properties"])
        assert t.annotations.read_only_hint is True and t.annotations.destructive_hint is False
        # a model reader gets: what comes back, limits, an example
        assert len(t.description) > 300 and "Returns" in t.description and "Example" in t.description, t.name
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{t.name}.{name} has no description"
    assert tools["search"].input_schema["properties"]["k"]["maximum"] == MAX_K
    assert tools["search"].input_schema["required"] == ["query"]
    assert set(tools["search"].input_schema["properties"]["tool"]["enum"]) == {"hybrid", "grep", "vector", "files", "related", "auto"}


def test_server_introduces_itself(mcp: McpSession) -> None:
    assert mcp.client.server_info.name == "kb"
    assert "search" in (mcp.client.instructions or "") and "path:Lstart-Lend" in (mcp.client.instructions or "")


# ---------------------------------------------------------------- tools


def test_search_hits_carry_path_lines_heading_snippet_score_and_tool(mcp: McpSession, kb: Path) -> None:
    doc = structured(mcp.call("search", {"query": "cache.ttl_seconds", "tool": "grep", "k": 3}))
    assert doc["tool"] == "grep" and doc["query"] == "cache.ttl_seconds" and doc["stale"] is False
    assert 1 <= len(doc["results"]) <= 3
    top = doc["results"][0]
    assert top["path"] == "reference/config.md" and top["tool"] == "grep" and top["rank"] == 1
    assert top["location"] == f"{top['path']}:L{top['start_line']}-L{top['end_line']}"
    assert "ttl_seconds" in top["snippet"] and "text" not in top
    a, b = top["snippet_lines"]
    assert top["start_line"] <= a <= b <= top["end_line"]
    assert top["snippet"].split("\n") == [ln[:300] for ln in _file_lines(kb, top["path"], a, b)]
    assert isinstance(top["score"], float) and isinstance(top["heading"], str)


def test_search_default_hybrid_filters_and_full_text(mcp: McpSession, kb: Path) -> None:
    doc = structured(mcp.call("search", {"query": "how do I roll back a deploy", "paths": ["runbooks/"], "k": 5, "full_text": True}))
    assert doc["tool"] == "hybrid" and doc["results"]
    assert all(h["path"].startswith("runbooks/") for h in doc["results"])
    for h in doc["results"]:
        assert h["text"].split("\n") == _file_lines(kb, h["path"], h["start_line"], h["end_line"])
    tagged = structured(mcp.call("search", {"query": "deploy", "tags": ["runbook"]}))["results"]
    assert tagged and all(h["path"].startswith("runbooks/") for h in tagged)


def test_search_tools_vector_files_related_and_auto(mcp: McpSession) -> None:
    assert structured(mcp.call("search", {"query": "缓存过期时间", "tool": "vector"}))["results"]
    files = structured(mcp.call("search", {"query": "rollback", "tool": "files"}))
    assert files["tool"] == "files" and files["results"][0]["path"] == "runbooks/rollback.md"
    auto = structured(mcp.call("search", {"query": "OPS-2051", "tool": "auto"}))
    assert auto["tool"] == "grep" and any("OPS-2051" in h["snippet"] for h in auto["results"])
    regex = structured(mcp.call("search", {"query": "OPS-20\\d\\d", "tool": "grep", "regex": True}))
    assert regex["results"]


def test_nothing_found_is_an_empty_result_not_an_error(mcp: McpSession) -> None:
    doc = structured(mcp.call("search", {"query": "zzqxv-no-such-token-anywhere", "tool": "grep"}))
    assert doc["results"] == []


def test_ask_returns_the_kb_ask_json_document(mcp: McpSession, kb: Path) -> None:
    q = "How do I roll back a bad orders-api deploy?"
    res = mcp.call("ask", {"question": q})
    doc = structured(res)
    Draft202012Validator(ASK_SCHEMA).validate(doc)
    assert json.loads(res.content[0].text) == doc
    assert doc["answer_source"] == "kb" and doc["citations"]
    for c in doc["citations"]:
        assert c["quote"].split("\n")[0].strip() in "\n".join(_file_lines(kb, c["path"], c["start_line"], c["end_line"]))
    cli = subprocess.run([sys.executable, "-m", "kb_agent", "ask", q, "--kb", str(kb), "--json"], capture_output=True, text=True,
                         env=server_env(XDG_CONFIG_HOME=str(kb.parent / "xdg")), timeout=120)
    assert cli.returncode == 0, cli.stderr
    expected = json.loads(cli.stdout)
    for key in ("question", "answer", "citations", "answer_source", "query_type", "stop_reason", "confidence"):
        assert doc[key] == expected[key], key


def test_ask_says_when_the_kb_does_not_answer(mcp: McpSession) -> None:
    doc = structured(mcp.call("ask", {"question": "What is the office wifi password?", "max_iterations": 1}))
    assert doc["answer_source"] == "none" and doc["citations"] == []


def test_read_numbers_lines_and_pages_long_files(mcp: McpSession, kb: Path) -> None:
    res = mcp.call("read", {"path": "runbooks/rollback.md", "start_line": 20, "end_line": 26})
    doc = structured(res)
    want = _file_lines(kb, "runbooks/rollback.md", 20, 26)
    assert doc["text"].split("\n") == [f"{20 + i}\t{line}" for i, line in enumerate(want)]
    assert (doc["start_line"], doc["end_line"], doc["truncated"], doc["next_start_line"]) == (20, 26, False, None)
    assert text_of(res).startswith("runbooks/rollback.md:L20-L26")

    first = mcp.call("read", {"path": "long.md"})
    doc = structured(first)
    assert (doc["end_line"], doc["line_count"], doc["truncated"], doc["next_start_line"]) == (MAX_READ_LINES, LONG_LINES, True, MAX_READ_LINES + 1)
    assert f"continue with start_line={MAX_READ_LINES + 1}" in text_of(first).split("\n")[0]
    first = doc
    rest = structured(mcp.call("read", {"path": "long.md", "start_line": first["next_start_line"]}))
    assert (rest["end_line"], rest["truncated"], rest["next_start_line"]) == (LONG_LINES, False, None)
    assert rest["text"].split("\n")[-1] == f"{LONG_LINES}\tline {LONG_LINES} of the long file"
    asked = structured(mcp.call("read", {"path": "long.md", "start_line": 1, "end_line": LONG_LINES}))
    assert asked["truncated"] is True and asked["end_line"] == MAX_READ_LINES
    clipped = structured(mcp.call("read", {"path": "long.md", "start_line": LONG_LINES - 1, "end_line": LONG_LINES + 50}))
    assert clipped["end_line"] == LONG_LINES and clipped["truncated"] is False


@pytest.mark.parametrize(("path", "says"), [
    ("../secret.md", "path leaves the knowledge base"),
    ("runbooks/../../secret.md", "path leaves the knowledge base"),
    ("/etc/passwd", "absolute paths are not allowed"),
    ("escape.md", "path leaves the knowledge base"),          # a symlink out of the root
    ("catalog-link.md", "hidden"),                           # a symlink into .kb/
    (".kb/catalog.sqlite", "hidden"),
    (".env", "hidden"),
    ("notes.txt", "not a markdown file"),
    ("pipe.md", "not a regular file"),
    ("runbooks", "not a markdown file"),
    ("no/such/file.md", "no such file in the knowledge base"),
])
def test_read_refuses_anything_outside_the_kb_as_an_error_result(mcp: McpSession, path: str, says: str) -> None:
    res = mcp.call("read", {"path": path})
    assert res.is_error and res.structured_content is None
    text = text_of(res)
    assert text.startswith("error: ") and says in text, text
    assert "sk-not-for-you" not in text and "outside secret" not in text
    assert res.meta["kb/error"]["message"] in text


def test_read_past_the_end_or_backwards_is_an_error_result(mcp: McpSession) -> None:
    res = mcp.call("read", {"path": "runbooks/rollback.md", "start_line": 5000})
    assert res.is_error and "lines" in text_of(res)
    res = mcp.call("read", {"path": "runbooks/rollback.md", "start_line": 10, "end_line": 9})
    assert res.is_error and text_of(res).startswith("error: end_line 9 is before start_line 10\nhint: ")


def test_files_lists_pages_and_finds(mcp: McpSession, kb: Path) -> None:
    from kb_agent.index.manifest import Catalog

    cat = Catalog.open(kb / ".kb" / "catalog.sqlite", readonly=True)
    indexed = sorted(p for p, f in cat.files().items() if f.status == "ok")
    cat.close()
    assert "drafts/unfinished-idea.md" not in indexed and "long.md" in indexed  # .gitignore'd; added
    everything = structured(mcp.call("files", {"limit": 500}))
    assert [f["path"] for f in everything["files"]] == indexed and everything["total"] == len(indexed)
    assert everything["next_offset"] is None
    page1 = structured(mcp.call("files", {"limit": 10}))
    page2 = structured(mcp.call("files", {"limit": 10, "offset": page1["next_offset"]}))
    assert [f["path"] for f in page1["files"] + page2["files"]] == indexed[:20]
    adr = structured(mcp.call("files", {"paths": ["adr/"]}))
    assert adr["files"] and all(f["path"].startswith("adr/") and f["title"] for f in adr["files"])
    found = structured(mcp.call("files", {"query": "redis sentinel"}))
    assert found["query"] == "redis sentinel" and "adr/0006-redis-sentinel-over-cluster.md" in [f["path"] for f in found["files"][:3]]
    assert found["files"][0]["snippet"] and "score" in found["files"][0]


def test_related_follows_links_both_ways(mcp: McpSession) -> None:
    doc = structured(mcp.call("related", {"query": "runbooks/rollback.md", "k": 20}))
    assert doc["tool"] == "related" and doc["results"]
    relations = [h["relation"] for h in doc["results"]]
    assert any(r.startswith("runbooks/rollback.md links to") for r in relations)
    assert any(r.endswith("links to runbooks/rollback.md") and not r.startswith("runbooks/rollback.md") for r in relations)


def test_status_has_the_kb_status_json_facts(mcp: McpSession, kb: Path) -> None:
    doc = structured(mcp.call("status"))
    cli = subprocess.run([sys.executable, "-m", "kb_agent", "status", "--kb", str(kb), "--json"], capture_output=True, text=True,
                         env=server_env(XDG_CONFIG_HOME=str(kb.parent / "xdg")), timeout=60)
    expected = json.loads(cli.stdout)
    assert set(expected) <= set(doc)
    for key in ("kb_root", "index", "files_indexed", "chunks", "fingerprint", "embedding_provider"):
        assert doc[key] == expected[key], key
    assert doc["server"]["watch"] == {"enabled": False} and doc["server"]["calls"] >= 1


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(("tool", "args"), [
    ("search", {}),                                            # missing required
    ("search", {"query": 3}),                                  # wrong type
    ("search", {"query": "x", "tool": "bogus"}),               # not in the enum
    ("search", {"query": "x", "k": 0}),
    ("search", {"query": "x", "k": MAX_K + 1}),
    ("search", {"query": "x", "colour": "red"}),               # unknown argument
    ("search", {"query": ""}),
    ("ask", {"question": "x", "max_iterations": 11}),
    ("read", {"path": "faq.md", "start_line": 0}),
    ("files", {"tags": "runbook"}),                            # a string where a list belongs
    ("status", {"verbose": True}),
    ("nope", {}),                                              # no such tool
])
def test_bad_arguments_are_protocol_errors(mcp: McpSession, tool: str, args: dict[str, Any]) -> None:
    with pytest.raises(MCPError) as err:
        mcp.call(tool, args)
    assert err.value.error.code == INVALID_PARAMS
    assert tool in err.value.error.message


@pytest.mark.parametrize(("tool", "args", "message", "hint"), [
    ("search", {"query": "deploy", "paths": ["docs/[z-a].md"]}, "not a valid path glob", "gitignore-style"),
    ("search", {"query": "   "}, "the query is empty", "ask something"),
    ("search", {"query": "x" * 4001}, "limit is 4,000", "shorten it"),
    ("ask", {"question": "y" * 5000}, "limit is 4,000", "shorten it"),
    ("search", {"query": "OPS-(", "tool": "grep", "regex": True}, "", ""),
])
def test_failures_are_error_results_with_the_cli_message_and_hint(mcp: McpSession, tool: str, args: dict[str, Any], message: str, hint: str) -> None:
    res = mcp.call(tool, args)
    assert res.is_error, text_of(res)
    text = text_of(res)
    assert text.startswith("error: ") and message in text
    if hint:
        assert f"\nhint: " in text and hint in text
    # the server survives and answers the next call
    assert not mcp.call("search", {"query": "cache.ttl_seconds", "tool": "grep", "k": 1}).is_error


# ---------------------------------------------------------------- resources


def test_resources_are_the_kb_files(mcp: McpSession, kb: Path) -> None:
    listed = mcp.run(lambda c: c.list_resources()).resources
    uris = {r.uri for r in listed}
    assert "kb://runbooks/rollback.md" in uris and all(u.startswith("kb://") for u in uris)
    assert all(r.mime_type == "text/markdown" for r in listed)
    templates = mcp.run(lambda c: c.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["kb://{+path}"]
    got = mcp.run(lambda c: c.read_resource("kb://runbooks/rollback.md")).contents[0]
    assert got.text == (kb / "runbooks" / "rollback.md").read_text(encoding="utf-8").rstrip("\n")
    for bad in ("kb://../secret.md", "kb://.env", "file:///etc/passwd", "kb://escape.md"):
        with pytest.raises(MCPError) as err:
            mcp.run(lambda c, u=bad: c.read_resource(u))  # type: ignore[misc]
        assert err.value.error.code == INVALID_PARAMS


def test_stdout_carries_only_the_protocol(kb: Path) -> None:
    """Raw JSON-RPC over the pipes: every stdout line is a JSON-RPC message (a garbled input line
    included, which the server skips), tool results and errors arrive, logs go to stderr."""
    import threading

    proc = subprocess.Popen([sys.executable, "-m", "kb_agent", "mcp", "--kb", str(kb)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=server_env(XDG_CONFIG_HOME=str(kb.parent / "xdg")), text=True)
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    assert proc.stdin is not None and proc.stdout is not None

    def send(*msgs: object) -> dict[str, Any]:
        for m in msgs:
            proc.stdin.write((m if isinstance(m, str) else json.dumps(m)) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        line = proc.stdout.readline()  # type: ignore[union-attr]
        reply: dict[str, Any] = json.loads(line)  # every stdout line is one JSON-RPC message
        assert reply["jsonrpc"] == "2.0"
        return reply

    try:
        init = send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert init["id"] == 1 and init["result"]["serverInfo"]["name"] == "kb"
        found = send({"jsonrpc": "2.0", "method": "notifications/initialized"}, "this is not json",
                     {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "cache.ttl_seconds", "tool": "grep", "k": 1}}})
        assert found["id"] == 2 and found["result"]["structuredContent"]["results"][0]["path"] == "reference/config.md"
        refused = send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read", "arguments": {"path": "../secret.md"}}})
        assert refused["id"] == 3 and refused["result"]["isError"] is True
        bad = send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read", "arguments": {}}})
        assert bad["id"] == 4 and bad["error"]["code"] == INVALID_PARAMS
        proc.stdin.close()
        assert proc.stdout.read() == ""
        assert proc.wait(timeout=60) == 0
        assert "kb mcp: serving" in (proc.stderr.read() if proc.stderr else "")
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()


def test_ask_reports_the_agents_progress_when_asked(mcp: McpSession) -> None:
    seen: list[tuple[float, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, message))

    res = mcp.run(lambda c: c.call_tool("ask", {"question": "How do I roll back a bad orders-api deploy?"}, progress_callback=progress))
    assert not res.is_error
    values = [v for v, _m in seen]
    assert values and values == sorted(values)
    assert any(m and m.startswith("analyze_and_route") for _v, m in seen)
    assert any(m and "tool_exec" in m for _v, m in seen)
