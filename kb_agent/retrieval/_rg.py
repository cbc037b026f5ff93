"""The one way kb runs ripgrep: no shell, `--json`, user text only after `-e`/`--`, a timeout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from kb_agent.errors import RipgrepFailed, RipgrepNotFound, UsageError


@dataclass(frozen=True, slots=True)
class RgResult:
    returncode: int  # 0 matches, 1 no match
    stdout: str
    stderr: str

    def events(self) -> Iterator[dict[str, Any]]:
        for line in self.stdout.splitlines():
            if line:
                yield json.loads(line)


@lru_cache(maxsize=4)
def find_rg(explicit: str = "") -> str:
    """The rg binary: KB_RG_PATH, else the one installed beside this Python (the ripgrep wheel), else PATH.

    Raises:
        RipgrepNotFound: none of those exist.
    """
    if explicit:
        if Path(explicit).is_file() and os.access(explicit, os.X_OK):
            return explicit
        raise RipgrepNotFound(f"KB_RG_PATH points at {explicit}, which is not an executable", hint="unset KB_RG_PATH or fix it")
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("rg")
    if found:
        return found
    raise RipgrepNotFound("ripgrep (`rg`) is not installed", hint="pip install ripgrep==14.1.0 (or apt-get install ripgrep)")


@lru_cache(maxsize=4)
def rg_version(explicit: str = "") -> str:
    out = subprocess.run([find_rg(explicit), "--version"], capture_output=True, text=True, timeout=10, check=False)
    return out.stdout.splitlines()[0] if out.stdout else "unknown"


def run_rg(args: list[str], *, cwd: Path, timeout_s: float, rg_path: str = "") -> RgResult:
    """Run rg with `args` (options first; the caller puts user text after `-e` or `--`).

    Returns:
        RgResult; exit 1 (no matches) is not an error.

    Raises:
        RipgrepNotFound: no binary. RipgrepFailed: timeout or rg error. UsageError: bad regex.
    """
    argv = [find_rg(rg_path), "--json", *args]
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise RipgrepFailed(f"ripgrep took longer than {timeout_s:g} s", hint="narrow the query or raise KB_RG_TIMEOUT_S") from None
    except FileNotFoundError:
        raise RipgrepNotFound("ripgrep (`rg`) could not be started", hint="pip install ripgrep==14.1.0") from None
    stdout = proc.stdout.decode("utf-8", errors="replace")
    stderr = proc.stderr.decode("utf-8", errors="replace")
    if proc.returncode == 2 and not stdout.strip():
        first = next((ln for ln in stderr.splitlines() if ln.strip()), "unknown error")
        if "regex" in stderr.lower():
            raise UsageError(f"invalid regular expression: {first.strip()}", hint="drop --regex to search for the text as written")
        raise RipgrepFailed(f"ripgrep failed: {first.strip()}")
    return RgResult(proc.returncode, stdout, stderr)
