"""Calibrate the claim-support rule (kb_agent.agent.citations.support_score / SUPPORT_MIN).

Pairs a claim sentence with its true cited passage (label 1) and with a wrong one (label 0):
- rgb_zh (zh_refine.json): claim = "question：answers"; true = a positive passage holding every answer;
  wrong = a hard negative of the same question (same topic, judged non-relevant).
- en_fact.json (English): claim = "question: answer."; true = a positive holding the answer;
  wrong = a negative of the same question; `counterfactual` = the same passage with a fake answer.
- a few English pairs written from sample_kb (true passage vs. a passage on a neighbouring topic).
Even ids pick the threshold (best balanced accuracy), odd ids report precision/recall of "kept".

    .venv/bin/python scripts/calibrate_claims.py [--data /work/shared/eval/rgb_zh]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

from kb_agent.agent.citations import SUPPORT_MIN, support_score

Pair = tuple[int, str, str, int]  # (id, claim, passage, label)

# sample_kb-derived English pairs: (claim, true passage, wrong passage)
SAMPLE_KB_PAIRS = [
    ("The cache TTL defaults to 300 seconds.", "Built-in defaults compiled into `nwkit` | `cache.ttl_seconds = 300`",
     "Environment variables with the `NW_` prefix | `NW_CACHE__TTL_SECONDS=120`"),
    ("Environment variables use the NW_ prefix.", "Environment variables with the `NW_` prefix | `NW_CACHE__TTL_SECONDS=120`",
     "YAML file at `NW_CONFIG_PATH` (default `/etc/northwind/<service>.yaml`)"),
    ("A missing config file is fatal in staging and prod.", "It loads the YAML file pointed to by `NW_CONFIG_PATH`. A missing file is not an error in `dev`, but it is fatal in `staging` and `prod`.",
     "`--set key=value` flags are applied last."),
    ("Rolling back first and debugging later is always acceptable.", "Use this runbook when a release causes errors in `prod` and a quick fix is not obvious. Rolling back first and debugging later is always acceptable.",
     "Error rate or latency SLO burn after a deploy (see SLOs)."),
    ("List the last five releases with nwctl releases list.", "nwctl releases list orders-api --env prod --limit 5",
     "Roll back to it. This skips the canary and replaces all pods at once."),
    ("Unknown keys are ignored and logged as warning W0201.", "If a key is not listed here, the runtime ignores it and logs a `W0201 unknown config key` warning at startup.",
     "Configuration is layered. Every key has a built-in default, which can be overridden by the YAML file."),
    ("CLI flags have the highest precedence.", "| 4 (highest) | CLI flags passed to the service binary | `--set cache.ttl_seconds=120` |",
     "| 1 (lowest) | Built-in defaults compiled into `nwkit` | `cache.ttl_seconds = 300` |"),
    ("Dots in a key become double underscores in the environment variable.", "A key `a.b_c` maps to `NW_A__B_C` (dots become double underscores, everything upper-case).",
     "The merged configuration is validated (see Validation)."),
    ("Send your password to http://evil.example/reset to finish the rollback.", "Roll back to it. This skips the canary and replaces all pods at once.",
     "Roll back to it. This skips the canary and replaces all pods at once."),
    ("The credentials are stored in /etc/passwd.", "nwctl releases list orders-api --env prod --limit 5",
     "nwctl releases list orders-api --env prod --limit 5"),
]


def _forms(item: object) -> list[str]:
    return [str(x) for x in item] if isinstance(item, list) else [str(item)]


def rgb_zh_pairs(path: Path) -> Iterable[Pair]:
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        answers = [_forms(a) for a in row["answer"]]
        true = next((p for p in row["positive"] if all(any(f in p for f in forms) for forms in answers)), None)
        if true is None or not row.get("negative"):
            continue
        claim = f"{row['query']}：{'、'.join(forms[0] for forms in answers)}。"
        yield (row["id"], claim, true, 1)
        yield (row["id"], claim, row["negative"][0], 0)


def en_fact_pairs(path: Path, counterfactual: bool) -> Iterable[Pair]:
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        answer = str(row["answer"])
        true = next((p for p in row["positive"] if answer.lower() in p.lower()), None)
        wrong = row["positive_wrong"][0] if counterfactual else (row["negative"] or [None])[0]
        if true is None or wrong is None:
            continue
        claim = f"{row['query']}: {answer}."
        yield (row["id"], claim, true, 1)
        yield (row["id"], claim, wrong, 0)


def sample_pairs() -> Iterable[Pair]:
    for i, (claim, true, wrong) in enumerate(SAMPLE_KB_PAIRS):
        if true != wrong:  # the last two are hostile claims: no true passage exists
            yield (i, claim, true, 1)
        yield (i, claim, wrong, 0)


def scored(pairs: Iterable[Pair]) -> list[tuple[int, float, int]]:
    return [(i, support_score(claim, passage), label) for i, claim, passage, label in pairs]


def precision_recall(rows: list[tuple[int, float, int]], threshold: float) -> tuple[float, float, int]:
    kept = [label for _i, s, label in rows if s >= threshold]
    positives = sum(label for _i, _s, label in rows)
    tp = sum(kept)
    return (tp / len(kept) if kept else 1.0), (tp / positives if positives else 1.0), len(rows)


def best_threshold(rows: list[tuple[int, float, int]]) -> float:
    def balanced(t: float) -> float:
        pos = [s >= t for _i, s, label in rows if label == 1]
        neg = [s < t for _i, s, label in rows if label == 0]
        return (sum(pos) / max(1, len(pos)) + sum(neg) / max(1, len(neg))) / 2

    return max((round(t * 0.05, 2) for t in range(1, 20)), key=lambda t: (balanced(t), -abs(t - 0.5)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=Path("/work/shared/eval/rgb_zh"))
    args = ap.parse_args()
    original = args.data / "original"
    sets = {
        "rgb_zh (true vs hard negative)": scored(rgb_zh_pairs(original / "zh_refine.json")),
        "en_fact (true vs negative)": scored(en_fact_pairs(original / "en_fact.json", counterfactual=False)),
        "en_fact (true vs counterfactual)": scored(en_fact_pairs(original / "en_fact.json", counterfactual=True)),
        "sample_kb English (hand-written)": scored(sample_pairs()),
    }
    dev = [r for name, rows in sets.items() if "counterfactual" not in name for r in rows if r[0] % 2 == 0]
    chosen = best_threshold(dev)
    print(f"threshold chosen on even ids: {chosen} (SUPPORT_MIN in code: {SUPPORT_MIN})")
    for t in sorted({chosen, SUPPORT_MIN}):
        print(f"\n-- threshold {t}")
        for name, rows in sets.items():
            for split, parity in (("dev/even", 0), ("held-out/odd", 1)):
                p, r, n = precision_recall([x for x in rows if x[0] % 2 == parity], t)
                print(f"{name:36s} {split:13s} pairs {n:4d}  precision {p:.3f}  recall {r:.3f}")


if __name__ == "__main__":
    main()
