"""Helpers for the Chroma server-mode tests: a restartable real `chroma run`, an auth proxy in front of it,
settings and `kb` subprocess commands (the `hash` embedder throughout: these tests are about the store)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from kb_agent.settings import Settings
from tests.support.sample import hash_settings, kb_free_env

CHROMA_BIN = Path(sys.executable).parent / "chroma"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def dead_url() -> str:
    """A loopback URL where nothing listens."""
    return f"http://127.0.0.1:{free_port()}"


class ChromaServer:
    """`chroma run --path PATH --host 127.0.0.1 --port PORT`, restartable on the same path and port."""

    def __init__(self, path: Path, log: Path) -> None:
        self.path = path
        self.log = log
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        if not CHROMA_BIN.exists():
            # chromadb is a hard dependency and ships the CLI: its absence is a broken install
            pytest.fail(f"the chroma CLI is not installed next to {sys.executable}")
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [str(CHROMA_BIN), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {self.proc.returncode}; see {self.log}")
            if self.answers():
                return
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"chroma run did not answer on {self.url} within {timeout:.0f} s; see {self.log}")

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1) as r:
                return r.status == 200
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, like a crashed or OOM-killed server."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None


def make_settings(root: Path, chroma_url: str = "", **kw: object) -> Settings:
    settings: Settings = hash_settings(root, chroma_url=chroma_url, **kw)
    return settings


def kb_env(chroma_url: str = "") -> dict[str, str]:
    """Environment for a `kb` subprocess."""
    env = kb_free_env(KB_EMBEDDING_PROVIDER="hash")
    if chroma_url:
        env["KB_CHROMA_URL"] = chroma_url
    return env


def kb_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb_agent", *args]


class AuthProxy:
    """A tiny reverse proxy in front of `chroma run` that demands one header, as an Envoy or nginx
    token check would (Chroma 1.x's own server has no auth; the docs put it behind a proxy)."""

    def __init__(self, upstream: str, header: str, value: str) -> None:
        import http.server
        import threading
        import urllib.error
        import urllib.request

        proxy = self
        self.seen_rejections = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _forward(self) -> None:
                if self.headers.get(header) != value:
                    proxy.seen_rejections += 1
                    self.send_response(401)
                    self.send_header("Content-Type", "application/json")
                    body = b'{"error": "Unauthorized", "message": "missing or wrong token"}'
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else None
                req = urllib.request.Request(upstream + self.path, data=data, method=self.command)
                for k, v in self.headers.items():
                    if k.lower() not in ("host", "content-length", "connection", header.lower()):
                        req.add_header(k, v)
                try:
                    with urllib.request.urlopen(req, timeout=30) as r:
                        status, headers, body = r.status, r.headers, r.read()
                except urllib.error.HTTPError as e:
                    status, headers, body = e.code, e.headers, e.read()
                self.send_response(status)
                for k, v in headers.items():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _forward

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
