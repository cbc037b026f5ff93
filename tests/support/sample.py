"""The one way tests copy sample_kb (never its `.kb` index or chat/audit leftovers), the hash-embedder
settings, KB_* scrubbing, and the snapshot that proves the suite leaves the working tree's sample_kb alone."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE_KB = REPO / "sample_kb"
QUESTIONS = REPO / "tests" / "fixtures" / "sample_questions.jsonl"

# `kb index` (e.g. scripts/quickstart.sh) writes `.kb/` into sample_kb in place; `kb chat` and audit
# logging leave these next to it. A copy carrying any of them would test someone else's index.
NEVER_COPIED = (".kb", "chat.sqlite", "chat.sqlite-*", "audit.jsonl", "chat_history")


def copy_sample(dest: Path, *, source: Path | None = None) -> Path:
    """Copy sample_kb (or `source`) to `dest`, which must not exist, without any index or chat state."""
    shutil.copytree(SAMPLE_KB if source is None else source, dest, ignore=shutil.ignore_patterns(*NEVER_COPIED))
    return dest


def copy_indexed(src: Path, dest: Path) -> Path:
    """Copy a KB this session indexed in a temp folder, index included; copy2 keeps mtimes so it stays fresh.

    Refuses the working tree's sample_kb: its index (if any) was built by someone else."""
    if src.resolve() == SAMPLE_KB.resolve():
        raise ValueError("copy_indexed never copies the working tree's sample_kb; use copy_sample")
    shutil.copytree(src, dest, copy_function=shutil.copy2, ignore=shutil.ignore_patterns("chat.sqlite*", "audit.jsonl", "chat_history"))
    return dest


def hash_settings(root: Path | None = None, **kw: Any) -> Any:
    """Settings with the instant `hash` embedder that never read a `.env` file."""
    from kb_agent.settings import Settings

    if root is not None:
        kw["root"] = root
    kw.setdefault("embedding_provider", "hash")
    return Settings(_env_file=None, **kw)


def scrub_kb_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove every KB_* variable of the developer's shell for the current test."""
    for key in list(os.environ):
        if key.startswith("KB_"):
            monkeypatch.delenv(key, raising=False)


def kb_free_env(**extra: str) -> dict[str, str]:
    """The current environment without KB_* variables, plus `extra`: for a `kb` child process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update(extra)
    return env


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root` (relative path → size, mtime_ns); empty when `root` is absent."""
    if not root.exists():
        return {}
    state = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        # a folder counts by its existence only: an empty `.kb/` appearing is a change too
        state[path.relative_to(root).as_posix()] = (-1, 0) if path.is_dir() and not path.is_symlink() else (st.st_size, st.st_mtime_ns)
    return state


def describe_change(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> str:
    """One line naming what changed between two tree_state() snapshots ('' when nothing did)."""
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    parts = [f"{label}: {', '.join(names[:5])}" for label, names in (("added", added), ("removed", removed), ("changed", changed)) if names]
    return "; ".join(parts)


def indexed_paths(root: Path) -> set[str]:
    """The paths the index of `root` (built with the hash embedder) holds."""
    from kb_agent.index.store import IndexReader

    r = IndexReader.open(hash_settings(root), root)
    try:
        return r.indexed_paths()
    finally:
        r.close()
