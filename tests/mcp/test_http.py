"""`kb mcp --http`: the SDK's streamable HTTP transport on a loopback port, and the refusal of other hosts."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kb_agent.cli.mcp_cmd import check_host
from kb_agent.errors import UsageError
from tests.support.mcp_client import McpSession, server_env, text_of


def test_http_transport_on_a_free_loopback_port(indexed_hash_kb: Path, tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "kb_agent", "mcp", "--kb", str(indexed_hash_kb), "--http", "--port", "0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=server_env(XDG_CONFIG_HOME=str(tmp_path / "xdg")))
    stderr_lines: list[str] = []
    url: list[str] = []
    got_url = threading.Event()

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stderr_lines.append(line)
            m = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", line)
            if m:
                url.append(m.group(1))
                got_url.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert got_url.wait(120), "".join(stderr_lines)
        with McpSession(url=url[0]) as mcp:
            res = mcp.call("search", {"query": "cache.ttl_seconds", "tool": "grep", "k": 1})
            assert not res.is_error, text_of(res)
            assert res.structured_content["results"][0]["path"] == "reference/config.md"
            refused = mcp.call("read", {"path": "../../etc/passwd"})
            assert refused.is_error
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.stdout is not None and proc.stdout.read() == ""  # logs and the URL go to stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_loopback_hosts_are_allowed(host: str) -> None:
    check_host(host, allow_remote=False)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.com"])
def test_other_hosts_are_refused_unless_forced(host: str) -> None:
    with pytest.raises(UsageError, match="not a loopback address.*no authentication"):
        check_host(host, allow_remote=False)
    check_host(host, allow_remote=True)


@pytest.mark.parametrize(("args", "says"), [
    (["--http", "--host", "0.0.0.0"], "refusing to serve on 0.0.0.0"),
    (["--port", "9999"], "--port needs --http"),
    (["--host", "127.0.0.1"], "--host needs --http"),
])
def test_cli_refuses_unsafe_or_meaningless_options(args: list[str], says: str, indexed_hash_kb: Path, tmp_path: Path) -> None:
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "kb_agent", "mcp", "--kb", str(indexed_hash_kb), *args], capture_output=True, text=True,
                       env=server_env(XDG_CONFIG_HOME=str(tmp_path / "xdg")), timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and says in p.stderr and "hint:" in p.stderr, p.stderr
    assert p.stdout == "" and time.perf_counter() - t0 < 30
