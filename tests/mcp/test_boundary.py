"""The server's error boundary, in process through the SDK's client: a bug inside a tool (which no real
input can trigger on purpose, hence the one broken method) becomes an `isError` result, the traceback
goes to the log, and the next call is served."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import anyio
import pytest

from kb_agent.mcp.server import KbMcpServer
from kb_agent.mcp.service import KbService
from tests.support.sample import hash_settings


class BrokenSearch(KbService):
    def tool_search(self, fresh: Any, **kw: Any) -> Any:
        raise RuntimeError("boom in search")


def test_a_crash_inside_a_tool_is_an_error_result_and_the_server_goes_on(indexed_hash_kb: Path, caplog: pytest.LogCaptureFixture) -> None:
    from mcp import Client

    server = KbMcpServer(BrokenSearch(hash_settings(indexed_hash_kb)))
    results: list[Any] = []

    async def session() -> None:
        async with Client(server.server, mode="legacy") as client:
            results.append(await client.call_tool("search", {"query": "deploy"}))
            results.append(await client.call_tool("read", {"path": "faq.md", "start_line": 1, "end_line": 3}))

    with caplog.at_level(logging.ERROR, logger="kb_agent.mcp.server"):
        anyio.run(session)
    server.close()
    crashed, after = results
    assert crashed.is_error
    assert crashed.content[0].text == ("error: unexpected error: RuntimeError: boom in search\n"
                                       "hint: this is a bug in kb; the server's stderr has the traceback")
    assert "tool search crashed" in caplog.text and "Traceback" in caplog.text
    assert not after.is_error and after.structured_content["path"] == "faq.md"
