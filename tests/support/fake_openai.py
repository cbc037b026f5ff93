"""A scripted OpenAI-compatible chat server on loopback for the hostile model cases: it records every
request (headers and body) and answers route / grade / synthesize calls as a test scripts it — hostile
text, a hang, HTTP 500s — streaming (SSE) when asked to."""

from __future__ import annotations

import http.server
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_SOURCE = re.compile(r"\[(\d+)\] \[SOURCE:([^\]]+)\][^\n]*\n<source>\n(.*?)\n</source>", re.S)


@dataclass
class Source:
    """One source as the model was shown it."""

    n: int
    location: str
    text: str

    def line_with(self, word: str) -> str:
        """The first line of this source containing `word` ("" when none)."""
        return next((ln.strip() for ln in self.text.split("\n") if word in ln), "")


def cite(sources: list[Source], word: str) -> int:
    """The number of the first source whose text holds `word` (0 when none)."""
    return next((s.n for s in sources if word in s.text), 0)


@dataclass
class Request:
    """A recorded request."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def kind(self) -> str:
        system = next((m.get("content", "") for m in self.body.get("messages", []) if m.get("role") == "system"), "")
        if system.startswith("You route"):
            return "route"
        if system.startswith("You grade"):
            return "grade"
        if system.startswith("You answer questions"):
            return "synthesize"
        if system.startswith("You write the questions"):
            return "questions"
        return "other"

    def sources(self) -> list[Source]:
        user = "\n".join(str(m.get("content", "")) for m in self.body.get("messages", []) if m.get("role") == "user")
        return [Source(int(m.group(1)), m.group(2), m.group(3)) for m in _SOURCE.finditer(user)]


SynthScript = Callable[[list[Source]], str]


def supported_answer(sources: list[Source]) -> str:
    """A faithful one-sentence answer about deploys, cited to the source that says it."""
    n = cite(sources, "Tuesday")
    return f"Production deploys run every Tuesday after the change review meeting [{n}]." if n else "NOT_IN_KB"


@dataclass
class Script:
    """How the server behaves: `mode` is "ok", "hang" (never replies), "500" or "delay"."""

    mode: str = "ok"
    delay_s: float = 0.0
    synthesize: SynthScript = field(default=lambda sources: supported_answer(sources))


class FakeOpenAI:
    """Start with `FakeOpenAI(script)`; `url` is its /v1 base; `requests` what arrived; `stop()` at the end."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script or Script()
        self.requests: list[Request] = []
        self.release = threading.Event()  # a hung handler returns once this is set
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0) or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                req = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                server.requests.append(req)
                server._answer(self, req)

            def do_GET(self) -> None:  # noqa: N802
                server.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, {}))
                self._send(404, b"{}")

            def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _answer(self, handler: Any, req: Request) -> None:
        script = self.script
        if script.mode == "hang":
            self.release.wait(600)
            return
        if script.mode == "500":
            handler._send(500, b'{"error": {"message": "internal error", "type": "server_error"}}')
            return
        if script.delay_s:
            time.sleep(script.delay_s)
        text = self._reply(req)
        if req.body.get("stream"):
            self._stream(handler, text)
        else:
            body = {"id": "fake", "object": "chat.completion", "created": 0, "model": req.body.get("model", "m"),
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
            handler._send(200, json.dumps(body).encode())

    def _reply(self, req: Request) -> str:
        kind = req.kind
        if kind == "route":
            return json.dumps({"query_type": "conceptual", "sub_questions": [], "suggested_tools": ["hybrid"], "grep_keywords": []})
        if kind == "grade":
            user = "\n".join(str(m.get("content", "")) for m in req.body.get("messages", []) if m.get("role") == "user")
            n = len(re.findall(r"\[SOURCE:", user))
            return json.dumps({"scores": [0.95] * n})
        if kind == "synthesize":
            return self.script.synthesize(req.sources())
        if kind == "questions":
            from tests.support.questions import answer_all

            return answer_all("\n".join(str(m.get("content", "")) for m in req.body.get("messages", []) if m.get("role") == "user"))
        return "ok"

    def _stream(self, handler: Any, text: str) -> None:
        pieces = [text[i : i + 24] for i in range(0, len(text), 24)] or [""]
        chunks = [{"id": "fake", "object": "chat.completion.chunk", "created": 0, "model": "m",
                   "choices": [{"index": 0, "delta": {"role": "assistant", "content": p}, "finish_reason": None}]} for p in pieces]
        chunks.append({"id": "fake", "object": "chat.completion.chunk", "created": 0, "model": "m",
                       "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        handler._send(200, body.encode(), "text/event-stream")
