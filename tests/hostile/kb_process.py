"""Run the real `kb` CLI in a child process with a clean environment: no KB_* from the developer,
HOME and XDG_CONFIG_HOME in a temp folder, the hash embedder; and a tiny knowledge base to run it on."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DOCS = {
    "deploy.md": "# Deploys\n\nProduction deploys run every Tuesday after the change review meeting.\n\n"
                 "Rollbacks use the previous container image tag and finish in about five minutes.\n",
    "cache.md": "# Cache\n\nThe session cache keeps entries for 300 seconds before they expire.\n\n"
                "Cache misses fall through to the primary Postgres database.\n",
    "oncall.md": "# On-call\n\nThe on-call engineer answers pages within fifteen minutes.\n\n"
                 "Escalate to the incident commander when customers are affected.\n",
}


@dataclass
class Home:
    """A throwaway HOME with its XDG config folder; `env()` is the child's whole environment."""

    path: Path

    @property
    def config(self) -> Path:
        return self.path / ".config"

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.path),
            "XDG_CONFIG_HOME": str(self.config),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "KB_EMBEDDING_PROVIDER": "hash",
        }
        env.update(extra)
        return env


def run_kb(args: list[str], *, env: dict[str, str], cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`kb ARGS` as a child process; returns its exit code, stdout and stderr."""
    return subprocess.run([sys.executable, "-m", "kb_agent", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, encoding="utf-8", errors="replace", timeout=timeout)


def make_kb(parent: Path, home: Home) -> Path:
    """A three-file knowledge base under `parent/kb`, indexed with the hash embedder."""
    root = parent / "kb"
    root.mkdir(parents=True)
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    r = run_kb(["index", "--kb", str(root)], env=home.env(), cwd=parent)
    assert r.returncode == 0, r.stderr
    return root
