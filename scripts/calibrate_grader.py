"""Calibrate the offline grader on labelled questions and measure `kb ask` offline.

    KB_EMBEDDING_PROVIDER=hash python scripts/calibrate_grader.py --kb sample_kb \
        --questions tests/fixtures/sample_questions.jsonl [--fit] [--e2e]

Builds the index if needed, retrieves for every question with the agent's own first plans,
labels each passage relevant when it overlaps a gold range of an answerable question, and reports
the grader's item-level ROC-AUC and question-level separation (answerable vs not). `--fit` fits
the logistic weights (printed for kb_agent/agent/grade.py); `--e2e` runs Engine.answer_query on
every question and reports route accuracy, found / not-found rates, gold-file recall and citation
validity.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kb_agent.agent import grade, nodes  # noqa: E402
from kb_agent.agent.analyzer import ROUTING_TABLE, analyze_question  # noqa: E402
from kb_agent.agent.citations import SourceRef, source_problem, _Disk  # noqa: E402
from kb_agent.agent.engine import Engine, _index_weights  # noqa: E402
from kb_agent.agent.execute import execute_plan  # noqa: E402
from kb_agent.agent.plan import PlanRequest, make_plan  # noqa: E402
from kb_agent.index.build import build_index  # noqa: E402
from kb_agent.retrieval.tools import Retriever  # noqa: E402
from kb_agent.settings import Settings  # noqa: E402
from kb_agent.types import SearchFilters  # noqa: E402


def auc(pos: list[float], neg: list[float]) -> float:
    """ROC-AUC by pairwise comparison (ties count half)."""
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def overlaps_gold(ev: object, gold: list[dict[str, object]]) -> bool:
    return any(ev.path == g["path"] and ev.start_line <= g["end_line"] and g["start_line"] <= ev.end_line for g in gold)  # type: ignore[attr-defined,operator]


def collect(retriever: Retriever, rows: list[dict], weights: object) -> list[tuple[dict, list[tuple[tuple[float, ...], int]]]]:
    out = []
    for row in rows:
        q = row["question"]
        a = analyze_question(q)
        items = []
        tried: set[str] = set()
        # the first two attempts' tools: what the grader sees in practice
        for attempt, tool_order in enumerate((ROUTING_TABLE[a.query_type], ROUTING_TABLE[a.query_type][::-1])):
            req = PlanRequest(q, tuple(tool_order), a.exact_terms, a.grep_keywords, a.sub_questions, a.fast_path, attempt + 1, frozenset(tried), 10)
            plan = make_plan(req)
            tried.update(s.signature for s in plan)
            for res in execute_plan(plan, retriever, filters=SearchFilters(), iteration=attempt + 1):
                items.extend(res.evidence)
        terms = grade.question_terms(q)
        w = weights(terms) if terms else {}  # type: ignore[operator]
        unknown = grade.unknown_terms(w)
        feats = []
        for i, it in enumerate(items):
            f = grade.item_features(terms, w, a.exact_terms, it, i, unknown)
            label = int(bool(row["answerable"]) and overlaps_gold(it, row["gold"]))
            feats.append((f.vector(), label))
        out.append((row, feats))
    return out


def fit(data: list[tuple[dict, list[tuple[tuple[float, ...], int]]]], l2: float = 0.01, steps: int = 4000) -> tuple[np.ndarray, float]:
    x = np.array([f for _r, fs in data for f, _l in fs], dtype=float)
    y = np.array([lab for _r, fs in data for _f, lab in fs], dtype=float)
    w = np.zeros(x.shape[1])
    b = 0.0
    pos_weight = (len(y) - y.sum()) / max(y.sum(), 1.0)  # balance the classes
    sw = np.where(y == 1, pos_weight, 1.0)
    lr = 0.5
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) * sw
        w -= lr * ((x.T @ g) / len(y) + l2 * w)
        b -= lr * g.mean()
    return w, float(b)


def report_grader(data: list, weights: tuple[float, ...], bias: float) -> dict[str, float]:
    pos, neg, q_ans, q_un = [], [], [], []
    for row, feats in data:
        scores = [grade.score_features(grade.ItemFeatures(*f), weights, bias) for f, _l in feats]
        for s, (_f, lab) in zip(scores, feats):
            (pos if lab else neg).append(s)
        best = max(scores, default=0.0)
        (q_ans if row["answerable"] else q_un).append(best)
    best_t, best_acc = 0.5, 0.0
    for t in np.arange(0.2, 0.95, 0.05):
        acc = (sum(s >= t for s in q_ans) / len(q_ans) + sum(s < t for s in q_un) / len(q_un)) / 2
        if acc > best_acc + 1e-9:
            best_t, best_acc = float(t), acc
    t = nodes.ANSWER_MIN_SCORE
    return {
        "items": len(pos) + len(neg),
        "relevant_items": len(pos),
        "item_auc": round(auc(pos, neg), 4),
        "question_auc": round(auc(q_ans, q_un), 4),
        "answerable_kept_at_min": round(sum(s >= t for s in q_ans) / len(q_ans), 4),
        "unanswerable_rejected_at_min": round(sum(s < t for s in q_un) / len(q_un), 4),
        "best_threshold": round(best_t, 2),
        "balanced_accuracy_at_best": round(best_acc, 4),
    }


def e2e(settings: Settings, rows: list[dict]) -> dict[str, float]:
    engine = Engine(settings)
    route_ok = found = gold_file = not_found = valid = total_cites = 0
    n_ans = sum(1 for r in rows if r["answerable"])
    latencies = []
    misses = []
    disk = _Disk(settings.kb_root())
    for row in rows:
        t0 = time.perf_counter()
        a = engine.answer_query(row["question"])
        latencies.append(time.perf_counter() - t0)
        route_ok += a.query_type == row["query_type"]
        for c in a.citations:
            total_cites += 1
            valid += source_problem(SourceRef(c.n, c.path, c.start_line, c.end_line, c.quote), disk) is None
        if row["answerable"]:
            found += a.found
            hit = any(c.path == g["path"] for c in a.citations for g in row["gold"])
            gold_file += hit
            if not hit:
                misses.append((row["id"], row["question"], [c.location for c in a.citations][:3], a.answer_source))
        else:
            not_found += not a.found
            if a.found:
                misses.append((row["id"], row["question"], [c.location for c in a.citations][:3], "answered-unanswerable"))
    engine.close()
    for m in misses:
        print("  miss:", m, file=sys.stderr)
    return {
        "questions": len(rows),
        "route_accuracy": round(route_ok / len(rows), 4),
        "answerable_answered": round(found / n_ans, 4),
        "gold_file_in_citations": round(gold_file / n_ans, 4),
        "unanswerable_not_found": round(not_found / max(len(rows) - n_ans, 1), 4),
        "citation_validity": round(valid / max(total_cites, 1), 4),
        "p50_warm_s": round(statistics.median(latencies), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", default="sample_kb")
    ap.add_argument("--questions", default="tests/fixtures/sample_questions.jsonl")
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--e2e", action="store_true")
    args = ap.parse_args()
    settings = Settings(root=Path(args.kb))
    build_index(settings)
    rows = [json.loads(line) for line in Path(args.questions).read_text(encoding="utf-8").splitlines() if line.strip()]
    with Retriever(settings) as r:
        data = collect(r, rows, _index_weights(r) or grade.uniform_weights)
    out: dict[str, object] = {"embedding": settings.embedding_provider, "current": report_grader(data, grade.WEIGHTS, grade.BIAS)}
    if args.fit:
        w, b = fit(data)
        fitted = tuple(round(float(v), 3) for v in w)
        out["fitted"] = {"weights": dict(zip(grade.FEATURES, fitted)), "bias": round(b, 3), **report_grader(data, fitted, round(b, 3))}
    if args.e2e:
        out["e2e"] = e2e(settings, rows)
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
