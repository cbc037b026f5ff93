"""Hostile-input helpers: run the real `kb` CLI in a child process with a timeout, assert one clear
error, and mount read-only binds and small tmpfs (root only; under CI=true a mount that fails is a failure)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.sample import kb_free_env

# A kb command here should answer in seconds; a hang (FIFO, device, alias bomb) trips this instead
# of stalling the suite.
KB_TIMEOUT_S = 90.0


@dataclass(frozen=True)
class KbRun:
    code: int
    out: str
    err: str
    seconds: float

    @property
    def text(self) -> str:
        return self.out + self.err


def kb(*args: str, cwd: Path, timeout: float = KB_TIMEOUT_S, env: dict[str, str] | None = None, stdin: str | None = None) -> KbRun:
    """Run `python -m kb_agent ARGS` with the hash embedder; a timeout fails the test (it means a hang)."""
    full_env = kb_free_env(KB_EMBEDDING_PROVIDER="hash", COLUMNS="200", NO_COLOR="1", **(env or {}))
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "kb_agent", *args], cwd=cwd, env=full_env, capture_output=True,
                              text=True, timeout=timeout, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`kb {' '.join(args)}` did not finish within {timeout:g} s (a hang)")
    return KbRun(proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - t0)


def assert_one_clear_error(run: KbRun, code: int, *words: str) -> None:
    """Exit `code`, one `error:` line naming `words`, no traceback and no 'unexpected error'."""
    assert run.code == code, f"exit {run.code}, expected {code}\n{run.text}"
    assert "unexpected error" not in run.err, run.err
    assert "Traceback" not in run.text, run.text
    errors = [ln for ln in run.err.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, run.err
    for w in words:
        assert w.lower() in run.err.lower(), f"{w!r} not in:\n{run.err}"


def need_mounts(reason: str) -> None:
    """Skip outside CI when mounting is impossible; under CI (CI=true) the case must run, so fail."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"cannot mount under CI: {reason}")
    pytest.skip(f"needs mount (root): {reason}")


def _mount(*argv: str) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        need_mounts("not root, or no mount binary")
    proc = subprocess.run(["mount", *argv], capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        need_mounts(proc.stderr.strip() or f"mount {' '.join(argv)} failed")


def _umount(target: Path) -> None:
    if subprocess.run(["umount", str(target)], capture_output=True, timeout=30).returncode != 0:
        subprocess.run(["umount", "-l", str(target)], capture_output=True, timeout=30)


@contextmanager
def readonly_bind(src: Path) -> Iterator[Path]:
    """`src` seen through a read-only bind mount (root cannot write there either)."""
    target = src.parent / f"{src.name}-ro"
    target.mkdir()
    _mount("--bind", str(src), str(target))
    try:
        _mount("-o", "remount,bind,ro", str(target))
        probe = target / ".kb" / "write-probe"
        try:
            probe.write_text("x")
        except OSError:
            pass
        else:
            probe.unlink()
            pytest.fail("the read-only bind mount accepted a write")
        yield target
    finally:
        _umount(target)


@contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` (e.g. "8m") mounted at `where`."""
    where.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where))
    try:
        yield where
    finally:
        _umount(where)
