"""`kb mcp`: serve the knowledge base to MCP clients (coding agents, editors) over stdio or local HTTP."""

from __future__ import annotations

from typing import Annotated

import typer

from kb_agent.cli import app
from kb_agent.cli._common import KbOption, err_console, lingering_worker_threads, load_settings

DEFAULT_PORT = 8765


@app.command("mcp")
def mcp_command(
    ctx: typer.Context,
    kb: KbOption = None,
    http: Annotated[bool, typer.Option("--http", help="Serve MCP's streamable HTTP transport (http://HOST:PORT/mcp) instead of stdio.")] = False,
    host: Annotated[str, typer.Option("--host", help="--http: the address to listen on (loopback only, unless --allow-remote).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="--http: the TCP port (0 picks a free one).", min=0, max=65535)] = DEFAULT_PORT,
    allow_remote: Annotated[bool, typer.Option("--allow-remote", help="--http: allow a non-loopback --host (no authentication: anyone who reaches it reads the KB).")] = False,
    watch: Annotated[bool, typer.Option("--watch", "-w", help="Also keep the index current as files are saved, renamed or deleted (as `kb index --watch`).")] = False,
) -> None:
    """Serve the knowledge base to MCP clients (search, ask, read, files, related, status tools) over stdio or local HTTP."""
    import os
    import sys

    from kb_agent.errors import UsageError

    given = {f"--{name.replace('_', '-')}" for name in ("host", "port", "allow_remote") if _from_command_line(ctx, name)}
    if given and not http:
        raise UsageError(f"{', '.join(sorted(given))} {'needs' if len(given) == 1 else 'need'} --http", hint="add --http, or drop it to serve over stdio")
    if http:
        check_host(host, allow_remote=allow_remote)
        host = host.strip("[]")  # `[::1]` as typed in a URL; the socket wants `::1`
    settings = load_settings(kb)
    _configure_logging()
    code = _serve(settings, http=http, host=host, port=port, watch=watch)
    if lingering_worker_threads():  # a client left while an answer was still inside a tool call
        sys.stderr.flush()
        os._exit(code)


def _serve(settings: object, *, http: bool, host: str, port: int, watch: bool) -> int:
    import anyio

    from kb_agent.mcp.server import KbMcpServer
    from kb_agent.mcp.service import KbService

    service = KbService(settings)  # type: ignore[arg-type]
    server = KbMcpServer(service)
    err = err_console()
    root = service.root
    if watch:
        from kb_agent.cli.index_cmd import watch_line

        service.start_watch(lambda u: err.print("kb mcp: " + watch_line(u), markup=False, highlight=False, soft_wrap=True))
    try:
        if http:
            def ready(url: str) -> None:
                err.print(f"kb mcp: serving {root} at {url}", highlight=False, soft_wrap=True)

            anyio.run(lambda: server.serve_http(host, port, on_ready=ready))
        else:
            err.print(f"kb mcp: serving {root} over stdio", highlight=False, soft_wrap=True)
            anyio.run(server.serve_stdio)
    finally:
        server.close()
    return 0


def check_host(host: str, *, allow_remote: bool) -> None:
    """Refuse a --host that is not a loopback address unless --allow-remote.

    Raises:
        UsageError: the host is not loopback and remote serving was not asked for.
    """
    import ipaddress

    from kb_agent.errors import UsageError

    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False  # a host name could resolve anywhere
    if not loopback and not allow_remote:
        raise UsageError(
            f"refusing to serve on {host}: not a loopback address, and kb mcp has no authentication — anyone who can reach it could read every file in the knowledge base",
            hint="use --host 127.0.0.1 (the default) or ::1; pass --allow-remote only on a network you trust",
        )


def _from_command_line(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _configure_logging() -> None:
    """Logs go to stderr, never stdout (stdout carries the protocol). `kb --debug mcp` logs everything."""
    import logging
    import sys

    from kb_agent.cli import _debug_requested

    if _debug_requested():
        return  # the root callback already logs at DEBUG to stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="kb mcp: %(levelname)s %(name)s: %(message)s")
    logging.getLogger("kb_agent.mcp").setLevel(logging.INFO)
