"""The protocol side of `kb mcp`, on the `mcp` SDK's low-level Server: tool and resource handlers,
argument validation, one worker thread for the knowledge base, and the stdio and HTTP transports.

Arguments that break a tool's input schema, unknown tools and unknown resources are protocol errors
(INVALID_PARAMS). Anything that goes wrong while a tool runs is a result with `isError: true`
carrying the CLI's message and hint; the server itself keeps serving.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable, Mapping
import concurrent.futures
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote, unquote

import mcp_types as types
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError

from kb_agent import __version__
from kb_agent.errors import KbError
from kb_agent.mcp.specs import INSTRUCTIONS, TOOLS, TOOLS_BY_NAME

if TYPE_CHECKING:
    from kb_agent.mcp.service import KbService, ToolOutput

log = logging.getLogger(__name__)

T = TypeVar("T")

RESOURCE_SCHEME = "kb://"
# resources/list pages: a 1,000-file KB lists in two round trips
RESOURCES_PAGE = 500


def resource_uri(path: str) -> str:
    """`kb://runbooks/rollback.md` (each path segment percent-encoded)."""
    return RESOURCE_SCHEME + quote(path, safe="/")


class KbMcpServer:
    """The MCP server for one knowledge base.

    Args:
        service: the warm knowledge base (it is only ever used from this server's worker thread).
    """

    def __init__(self, service: KbService) -> None:
        self.service = service
        # one thread owns the index, the embedder and the agent graph: calls run one at a time, in order
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-mcp")
        self._validators = {t.name: Draft202012Validator(t.input_schema) for t in TOOLS}
        self.server: Server[Any] = Server(
            "kb",
            version=__version__,
            title="kb — markdown knowledge base",
            description=f"Search and cited answers over the markdown files in {service.root}",
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_resource_templates,
            on_read_resource=self._read_resource,
        )

    # ------------------------------------------------------------ transports

    async def serve_stdio(self) -> None:
        """Serve one client on stdin/stdout until it closes stdin (the SDK points fd 1 at stderr meanwhile,
        so a stray print can never corrupt the protocol)."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read_stream, write_stream):
            self.start_warming()
            await self.server.run(read_stream, write_stream, self.server.create_initialization_options())

    async def serve_http(self, host: str, port: int, *, on_ready: Callable[[str], None] | None = None) -> None:
        """Serve the SDK's streamable HTTP transport at http://host:port/mcp until interrupted.

        Args:
            host: the address to bind (the CLI refuses non-loopback addresses unless forced).
            port: the TCP port; 0 picks a free one.
            on_ready: called with the endpoint URL once the socket listens.
        """
        import uvicorn

        app = self.server.streamable_http_app(host=host)
        config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False, lifespan="on", ws="none")

        class _Server(uvicorn.Server):
            async def startup(self, sockets: Any = None) -> None:
                await super().startup(sockets)
                if on_ready is not None and self.servers:
                    bound = self.servers[0].sockets[0].getsockname()
                    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
                    on_ready(f"http://{shown}:{bound[1]}/mcp")

        self.start_warming()
        await _Server(config).serve()

    def start_warming(self) -> None:
        """Queue the warm-up as the worker's first job: the first calls wait for it instead of racing it."""
        self._worker.submit(self._warm)

    def _warm(self) -> None:
        try:
            self.service.warm()
        except KbError as e:  # e.g. no usable index yet: each call reports it with its hint
            log.warning("%s", e.message + (f" (hint: {e.hint})" if e.hint else ""))
        except Exception:  # a call that needs what failed to load reports it
            log.exception("warm-up failed")

    def close(self) -> None:
        """Stop the watcher, drop queued calls, let a running one finish, then release the index."""
        self.service.watch.halt()
        self._worker.shutdown(wait=True, cancel_futures=True)
        self.service.close()  # the worker is gone: nothing else uses the service now

    async def _on_worker(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.wrap_future(self._worker.submit(fn, *args))

    # ------------------------------------------------------------ tools

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(
                name=t.name, title=t.title, description=t.description, input_schema=t.input_schema, output_schema=t.output_schema,
                annotations=types.ToolAnnotations(title=t.title, read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False),
            )
            for t in TOOLS
        ])

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        if name not in TOOLS_BY_NAME:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {name!r}; the tools are: {', '.join(TOOLS_BY_NAME)}")
        args = dict(params.arguments or {})
        problem = best_match(self._validators[name].iter_errors(args))
        if problem is not None:
            where = "/".join(str(p) for p in problem.absolute_path) or "arguments"
            raise MCPError(code=types.INVALID_PARAMS, message=f"invalid arguments for {name}: {where}: {problem.message}",
                           data={"tool": name, "path": list(problem.absolute_path), "schema_rule": problem.validator})
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            progress = _ProgressReporter(ctx) if name == "ask" else None
            out = await self._on_worker(partial(self.service.call, name, args, on_event=progress))
            if progress is not None:
                await progress.flush()  # every progress notification goes out before the result
        except KbError as e:
            log.info("tool %s: %s", name, e.message)
            return _error_result(e.message, e.hint, {"error": type(e).__name__, "exit_code": int(e.exit_code)})
        except Exception as e:  # the boundary: a bug in a tool must not take the server down
            log.exception("tool %s crashed", name)
            return _error_result(f"unexpected error: {type(e).__name__}: {e}", "this is a bug in kb; the server's stderr has the traceback",
                                 {"error": type(e).__name__})
        timings = {"wall_ms": round((time.perf_counter() - t0) * 1000, 1), "cpu_ms": round((time.process_time() - c0) * 1000, 1)}
        return _tool_result(out, timings)

    # ------------------------------------------------------------ resources

    async def _list_resources(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        try:
            rows = await self._on_worker(self.service.list_files)
        except KbError as e:  # no index yet: nothing to list (the template still reads files)
            log.info("resources/list: %s", e.message)
            rows = []
        cursor = params.cursor if params is not None else None
        try:
            start = int(cursor) if cursor else 0
        except ValueError:
            raise MCPError(code=types.INVALID_PARAMS, message=f"invalid cursor {cursor!r}") from None
        page = rows[start : start + RESOURCES_PAGE]
        nxt = str(start + RESOURCES_PAGE) if start + RESOURCES_PAGE < len(rows) else None
        return types.ListResourcesResult(
            resources=[types.Resource(uri=resource_uri(f.path), name=f.path, title=f.title or None, mime_type="text/markdown") for f in page],
            next_cursor=nxt,
        )

    async def _list_resource_templates(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[
            types.ResourceTemplate(
                uri_template=RESOURCE_SCHEME + "{+path}", name="kb-file", title="A knowledge-base file",
                description="A markdown file of the knowledge base by its path relative to the KB root, e.g. kb://runbooks/rollback.md",
                mime_type="text/markdown",
            ),
        ])

    async def _read_resource(self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = params.uri
        if not uri.startswith(RESOURCE_SCHEME):
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown resource {uri!r}: kb serves kb://<path> URIs", data={"uri": uri})
        path = unquote(uri[len(RESOURCE_SCHEME):])
        try:
            text = await self._on_worker(self.service.read_text, path)
        except KbError as e:
            message = e.message + (f" (hint: {e.hint})" if e.hint else "")
            raise MCPError(code=types.INVALID_PARAMS, message=message, data={"uri": uri}) from None
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=text, mime_type="text/markdown")])


class _ProgressReporter:
    """The agent's progress events as MCP progress notifications (sent only when the caller asked for
    them with a progress token): a growing count and what runs now, e.g. `tool_exec [1] i1s1 grep('…')…`.
    Streamed model tokens are not sent: only the verified answer leaves the server."""

    def __init__(self, ctx: ServerRequestContext[Any]) -> None:
        self._ctx = ctx
        self._loop = asyncio.get_running_loop()
        self._count = itertools.count(1)
        self._sent: list[concurrent.futures.Future[None]] = []

    def __call__(self, event: Mapping[str, Any]) -> None:  # called on the worker thread
        from kb_agent.render.live import ProgressEvent

        if event.get("type") == "progress" and event.get("status") == "start":
            label = ProgressEvent.from_dict(event).label()
            self._sent.append(asyncio.run_coroutine_threadsafe(self._ctx.session.report_progress(next(self._count), None, label), self._loop))

    async def flush(self) -> None:
        for fut in self._sent:
            try:
                await asyncio.wrap_future(fut)
            except Exception as e:  # noqa: BLE001 - a lost progress note never fails the call
                log.debug("progress notification not sent: %s", e)


def _tool_result(out: ToolOutput, timings: dict[str, float]) -> types.CallToolResult:
    from kb_agent.render.json import dumps

    content: list[types.ContentBlock] = [types.TextContent(type="text", text=out.text if out.text is not None else dumps(out.data))]
    content += [types.TextContent(type="text", text=f"note: {n}") for n in out.notes]
    meta: dict[str, Any] = {"kb/timings": timings}
    if out.meta:
        meta["kb/freshness"] = out.meta
    return types.CallToolResult(content=content, structured_content=out.data, _meta=meta)


def _error_result(message: str, hint: str | None, detail: dict[str, Any]) -> types.CallToolResult:
    text = f"error: {message}" + (f"\nhint: {hint}" if hint else "")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True,
                                _meta={"kb/error": {"message": message, "hint": hint, **detail}})
