"""Shared helpers for kb's benchmark scripts (eval_beir.py, eval_sample_kb.py, bench_speed.py).

Nothing here is part of the kb package; the scripts import it from their own folder.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# ../shared/eval beside the repo; from a worktree (/work/wt/<name>) the one beside the worktrees folder
DEFAULT_EVAL_DIR = next((p for p in ((REPO / ".." / "shared" / "eval").resolve(), (REPO / ".." / ".." / "shared" / "eval").resolve()) if p.is_dir()),
                        (REPO / ".." / "shared" / "eval").resolve())
DEFAULT_CACHE_DIR = Path(os.environ.get("KB_BENCH_CACHE", str((REPO / ".." / "bench-cache").resolve())))

# run as `python scripts/x.py` without installing kb; a venv that has kb_agent installed (e.g. another
# worktree's `.venv/bin/python`) keeps its own kb_agent, so these scripts can measure that tree's code
if importlib.util.find_spec("kb_agent") is None and str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def eval_dir_or_exit(path: str | Path | None, *need: str) -> Path:
    """The eval folder; exit 0 with a message when it (or a needed subfolder) is absent."""
    d = Path(path) if path else DEFAULT_EVAL_DIR
    missing = [n for n in need if not (d / n).exists()]
    if not d.is_dir() or missing:
        what = d if not d.is_dir() else ", ".join(str(d / n) for n in missing)
        print(f"skip: evaluation data not found ({what}); pass --eval-dir or see ../shared/eval/README.md", file=sys.stderr)
        raise SystemExit(0)
    return d


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(doc_id: str) -> str:
    """A file-system-safe stem for a document id (ids that differ only in unsafe chars get a hash suffix)."""
    s = _UNSAFE.sub("_", doc_id).strip("._-") or "doc"
    if s != doc_id:
        import hashlib

        s = f"{s}-{hashlib.sha1(doc_id.encode()).hexdigest()[:6]}"
    return s[:120]


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or parts[0] == "query-id":
                continue
            try:
                score = int(parts[2])
            except ValueError:
                continue
            out.setdefault(parts[0], {})[parts[1]] = score
    return out


# ---- metrics (binary/graded relevance as in BEIR's pytrec_eval usage) ----


def ndcg_at(ranked: Sequence[str], rel: dict[str, int], k: int = 10) -> float:
    dcg = sum((2 ** rel.get(d, 0) - 1) / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if rel.get(d, 0) > 0)
    ideal = sorted((g for g in rel.values() if g > 0), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: Sequence[str], rel: dict[str, int], k: int) -> float:
    pos = {d for d, g in rel.items() if g > 0}
    return len(pos & set(ranked[:k])) / len(pos) if pos else 0.0


def mrr_at(ranked: Sequence[str], rel: dict[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if rel.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def dedup(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def pct(values: Sequence[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    i = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[i]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def md_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    def fmt(v: object) -> str:
        if isinstance(v, float):
            return f"{v:.3f}"
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def machine_info() -> dict[str, str]:
    model = ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return {
        "nproc": str(os.cpu_count()),
        "cpu": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""),
    }


def progress_logger(every_s: float = 30.0):  # type: ignore[no-untyped-def]
    """An on_progress callback for build_index that logs files/chunks and rate every `every_s` seconds."""
    state = {"t0": time.perf_counter(), "last": 0.0}

    def cb(p) -> None:  # type: ignore[no-untyped-def]
        now = time.perf_counter()
        if p.phase == "embed" and "embed_t0" not in state:  # the rate counts from the first embed event on
            state["embed_t0"], state["embed_c0"] = now, p.chunks_done
        if p.phase == "done" or now - state["last"] >= every_s:
            state["last"] = now
            el = now - state["t0"]
            if getattr(p, "chunks_total", 0) and p.phase == "embed":  # lexical phase done: vectors stream in
                eel = now - state["embed_t0"]
                rate = (p.chunks_done - state["embed_c0"]) / eel if eel > 0 else 0.0
                eta = (p.chunks_total - p.chunks_done) / rate if rate else float("nan")
                log(f"index embed: chunks {p.chunks_done}/{p.chunks_total}, {rate:.2f} chunks/s, eta {eta / 60:.1f} min")
                return
            rate = p.chunks_done / el if el > 0 else 0.0
            eta = (p.files_total - p.files_done) * (el / p.files_done) if p.files_done else float("nan")
            log(f"index {p.phase}: files {p.files_done}/{p.files_total}, chunks embedded {p.chunks_done}, {rate:.1f} chunks/s, eta {eta / 60:.1f} min")

    return cb


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    tmp.replace(path)
