"""Warm in-process hybrid search latency on an indexed KB: p50 wall time and CPU time per query
(this process plus its rg children, so it means something on a shared machine too).

    KB_EMBEDDING_PROVIDER=hash python scripts/bench_warm.py ../bench-cache/speed/kb1k/kb --reps 3
    PYTHONPATH=<another tree> python scripts/bench_warm.py KB          # the same for another tree's kb_agent

The queries are bench_speed.py's WARM_QUERIES; each is run once to warm up before the timings.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as B  # noqa: E402,F401 — puts this tree's kb_agent on the path when it is not installed
from bench_speed import WARM_QUERIES  # noqa: E402


def cpu_s() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kb", help="an indexed knowledge base")
    ap.add_argument("--reps", type=int, default=3, help="rounds over the queries (default 3)")
    ap.add_argument("-k", type=int, default=10, help="results per search (default 10, as kb search)")
    a = ap.parse_args(argv)
    from kb_agent.retrieval.tools import Retriever
    from kb_agent.settings import Settings

    with Retriever(Settings(root=a.kb)) as r:
        for q in WARM_QUERIES:
            r.hybrid(q, k=a.k)
        walls, cpus = [], []
        for _ in range(a.reps):
            for q in WARM_QUERIES:
                c0, w0 = cpu_s(), time.perf_counter()
                r.hybrid(q, k=a.k)
                walls.append((time.perf_counter() - w0) * 1000)
                cpus.append((cpu_s() - c0) * 1000)
    print(f"{a.kb}: warm hybrid p50 wall {statistics.median(walls):.0f} ms, CPU {statistics.median(cpus):.0f} ms "
          f"(process + rg), {len(walls)} searches, load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
