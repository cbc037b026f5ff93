"""A real `kb mcp` subprocess driven by the `mcp` SDK's own client, behind a small synchronous facade.

The client runs in an event loop on a background thread, so one server can serve every test of a
module (starting one costs seconds) and tests stay plain functions.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from tests.support.sample import kb_free_env

T = TypeVar("T")
CALL_TIMEOUT_S = 120.0


def server_env(**extra: str) -> dict[str, str]:
    """The environment of a `kb mcp` child: no developer KB_* settings, the hash embedder."""
    return kb_free_env(KB_EMBEDDING_PROVIDER="hash", **extra)


class McpSession:
    """`kb mcp --kb ROOT` over stdio, through `mcp.Client`; close() ends the subprocess.

    Args:
        root: the knowledge base to serve.
        args: extra arguments after `kb mcp`.
        env: the child's environment (default `server_env()`).
        url: connect to a streamable-HTTP endpoint instead of starting a stdio child.
    """

    def __init__(self, root: Path | None = None, *, args: tuple[str, ...] = (), env: dict[str, str] | None = None, url: str | None = None) -> None:
        from mcp import Client, StdioServerParameters

        if url is not None:
            self._target: Any = url
        else:
            assert root is not None
            self._target = StdioServerParameters(
                command=sys.executable, args=["-m", "kb_agent", "mcp", "--kb", str(root), *args], env=env or server_env(), cwd=str(root.parent),
            )
        self._client_cls = Client
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-test-client", daemon=True)
        self._thread.start()
        self._ready: Future[Any] = Future()
        self._stop: asyncio.Event | None = None
        self._holder = asyncio.run_coroutine_threadsafe(self._hold(), self._loop)
        self.client = self._ready.result(timeout=CALL_TIMEOUT_S)

    async def _hold(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with self._client_cls(self._target, read_timeout_seconds=CALL_TIMEOUT_S) as client:
                self._ready.set_result(client)
                await self._stop.wait()
        except BaseException as e:
            if not self._ready.done():
                self._ready.set_exception(e)
            raise

    def run(self, fn: Callable[[Any], Awaitable[T]]) -> T:
        """Run `fn(client)` in the client's loop and wait for its result (exceptions are re-raised)."""
        return asyncio.run_coroutine_threadsafe(fn(self.client), self._loop).result(timeout=CALL_TIMEOUT_S)  # type: ignore[arg-type]

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """tools/call → the CallToolResult (an MCPError is raised for a protocol error)."""
        return self.run(lambda c: c.call_tool(name, arguments or {}))

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        try:
            self._holder.result(timeout=30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    def __enter__(self) -> McpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def text_of(result: Any) -> str:
    """All text blocks of a tool result, joined."""
    return "\n".join(b.text for b in result.content if getattr(b, "type", "") == "text")


def structured(result: Any) -> dict[str, Any]:
    """A tool result that must have succeeded: its structured content (the assertion shows the error text)."""
    assert not result.is_error, text_of(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content
