"""Calibrate the offline grader's scores on held-out data and measure `kb ask` offline.

    # fit on dev data (fastapi dev split + rgb_zh even ids), report on rgb_zh odd ids (held out)
    python scripts/calibrate_grader.py --questions QSET.jsonl --split dev --kb FASTAPI_KB \
        --rgb-kb RGB_SUBSET_KB --rgb-queries 100 --fit
    # the old mode: one labelled set over one KB
    KB_EMBEDDING_PROVIDER=hash python scripts/calibrate_grader.py --kb sample_kb \
        --questions tests/fixtures/sample_questions.jsonl [--fit] [--e2e]

Retrieves for every question with the agent's own first plans and labels each passage relevant when
it overlaps a gold range (question sets) or is one of the question's judged positive passages
(rgb_zh, a KB built by `eval_beir.py rgb_zh --subset-queries N`). For rgb_zh each question also
gets an *unanswerable twin*: the same items without the positive passages (what the grader sees when
the KB lacks the answer). Reports item ROC-AUC, a reliability table (mean label per score bin: a
calibrated 0.7 means ~70 % relevant), question-level separation and the refusal rate at
ANSWER_MIN_SCORE. `--fit` fits the logistic weights (not class-balanced, so scores are
probabilities) on the fit part only and reports the held-out part with them.
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


Data = list[tuple[dict, list[tuple[tuple[float, ...], int]]]]


def retrieve(retriever: Retriever, q: str) -> list[object]:
    """The items of the agent's first two attempts (what the grader sees in practice)."""
    a = analyze_question(q)
    items: list[object] = []
    tried: set[str] = set()
    for attempt, tool_order in enumerate((ROUTING_TABLE[a.query_type], ROUTING_TABLE[a.query_type][::-1])):
        req = PlanRequest(q, tuple(tool_order), a.exact_terms, a.grep_keywords, a.sub_questions, a.fast_path, attempt + 1, frozenset(tried), 10)
        plan = make_plan(req)
        tried.update(s.signature for s in plan)
        for res in execute_plan(plan, retriever, filters=SearchFilters(), iteration=attempt + 1):
            items.extend(res.evidence)
    return items


def features(row: dict, items: list[object], weights: object, label: object) -> list[tuple[tuple[float, ...], int]]:
    q = row["question"]
    a = analyze_question(q)
    terms = grade.question_terms(q)
    w = weights(terms) if terms else {}  # type: ignore[operator]
    unknown = grade.unknown_terms(w)
    return [(grade.item_features(terms, w, a.exact_terms, it, i, unknown).vector(), int(label(it))) for i, it in enumerate(items)]  # type: ignore[arg-type,operator]


def collect(retriever: Retriever, rows: list[dict], weights: object) -> Data:
    """Question-set rows (gold line ranges; `answerable`)."""
    out = []
    for row in rows:
        items = retrieve(retriever, row["question"])
        out.append((row, features(row, items, weights, lambda it, row=row: bool(row["answerable"]) and overlaps_gold(it, row["gold"]))))
    return out


def collect_rgb(retriever: Retriever, queries: list[dict], positives: dict[str, set[str]], weights: object) -> Data:
    """rgb_zh rows: a passage is relevant when judged positive; each question also yields its
    unanswerable twin (the same items minus the positives)."""
    out: Data = []
    for qrow in queries:
        pos = positives.get(qrow["_id"], set())
        row = {"id": qrow["_id"], "question": qrow["text"], "answerable": True}
        items = retrieve(retriever, row["question"])
        out.append((row, features(row, items, weights, lambda it, pos=pos: Path(it.path).stem in pos)))  # type: ignore[attr-defined]
        rest = [it for it in items if Path(it.path).stem not in pos]  # type: ignore[attr-defined]
        twin = {"id": qrow["_id"] + "-twin", "question": row["question"], "answerable": False}
        out.append((twin, features(twin, rest, weights, lambda _it: False)))
    return out


def fit(data: Data, l2: float = 0.01, steps: int = 4000) -> tuple[np.ndarray, float]:
    """Class-balanced logistic regression of "the passage is relevant" on the features."""
    x = np.array([f for _r, fs in data for f, _l in fs], dtype=float)
    y = np.array([lab for _r, fs in data for _f, lab in fs], dtype=float)
    w = np.zeros(x.shape[1])
    b = 0.0
    pos_weight = (len(y) - y.sum()) / max(y.sum(), 1.0)
    sw = np.where(y == 1, pos_weight, 1.0)
    lr = 0.5
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) * sw
        w -= lr * ((x.T @ g) / len(y) + l2 * w)
        b -= lr * g.mean()
    return w, float(b)


# the bound on answerable questions refused; the bias is set so the fit part stays within it
MAX_REFUSED = 0.05


def calibrate_bias(data: Data, weights: tuple[float, ...], bias: float) -> float:
    """The lowest bias (most unanswerable questions rejected) whose refusal rate of answerable
    fit-part questions at ANSWER_MIN_SCORE stays ≤ MAX_REFUSED: the score 0.5 then means "as
    likely as the weakest answerable question to hold an answer", which is what the not-found rule reads."""
    best = bias
    for shift in np.arange(3.0, -3.01, -0.05):
        b = round(bias + float(shift), 3)
        rep = report_grader(data, weights, b)
        if float(rep.get("answerable_refused_at_min", 0.0)) <= MAX_REFUSED:  # type: ignore[arg-type]
            best = b
        else:
            break
    return best


def reliability(pos: list[float], neg: list[float]) -> list[dict[str, object]]:
    """Share of relevant items per score bin: a calibrated score s is relevant about s of the time."""
    out = []
    for lo, hi in ((0.0, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 1.01)):
        p = sum(lo <= s < hi for s in pos)
        n = sum(lo <= s < hi for s in neg)
        out.append({"bin": f"{lo:.1f}-{min(hi, 1.0):.1f}", "items": p + n, "relevant": round(p / (p + n), 3) if p + n else None})
    return out


def report_grader(data: Data, weights: tuple[float, ...], bias: float) -> dict[str, object]:
    pos, neg, q_ans, q_un = [], [], [], []
    for row, feats in data:
        scores = [grade.score_features(grade.ItemFeatures(*f), weights, bias) for f, _l in feats]
        for s, (_f, lab) in zip(scores, feats):
            (pos if lab else neg).append(s)
        best = max(scores, default=0.0)
        (q_ans if row["answerable"] else q_un).append(best)
    t = nodes.ANSWER_MIN_SCORE
    out: dict[str, object] = {
        "questions": len(q_ans) + len(q_un),
        "items": len(pos) + len(neg),
        "relevant_items": len(pos),
        "item_auc": round(auc(pos, neg), 4),
        "reliability": reliability(pos, neg),
        "kept_items_relevant": round(sum(s >= 0.3 for s in pos) / max(sum(s >= 0.3 for s in pos + neg), 1), 3),
        "dropped_items_relevant": round(sum(s < 0.3 for s in pos) / max(sum(s < 0.3 for s in pos + neg), 1), 3),
    }
    if q_ans and q_un:
        out["question_auc"] = round(auc(q_ans, q_un), 4)
    if q_ans:
        out["answerable_refused_at_min"] = round(sum(s < t for s in q_ans) / len(q_ans), 4)
    if q_un:
        out["unanswerable_rejected_at_min"] = round(sum(s < t for s in q_un) / len(q_un), 4)
    return out


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


def rgb_rows(eval_dir: Path, n: int) -> tuple[list[dict], dict[str, set[str]]]:
    queries = [json.loads(x) for x in (eval_dir / "rgb_zh" / "queries.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()][:n]
    positives: dict[str, set[str]] = {}
    for line in (eval_dir / "rgb_zh" / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        q, d, score = line.split("\t")
        if int(score) > 0:
            positives.setdefault(q, set()).add(d)
    return queries, positives


def gather(args: argparse.Namespace, settings: Settings) -> tuple[Data, Data, list[dict]]:
    """Features of the fit part (question-set rows of --split, rgb_zh even ids) and the held-out part (rgb_zh odd ids)."""
    build_index(settings)
    rows = [json.loads(line) for line in Path(args.questions).read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.split:
        rows = [r for r in rows if r.get("split") == args.split]
    with Retriever(settings) as r:
        fit_data = collect(r, rows, _index_weights(r) or grade.uniform_weights)
    held: Data = []
    if args.rgb_kb:
        queries, positives = rgb_rows(Path(args.eval_dir), args.rgb_queries)
        with Retriever(Settings(root=Path(args.rgb_kb), **({"embedding_provider": args.provider} if args.provider else {}))) as r:
            rgb = collect_rgb(r, queries, positives, _index_weights(r) or grade.uniform_weights)
        fit_data += [d for d in rgb if int(d[0]["id"][1:].split("-")[0]) % 2 == 0]
        held = [d for d in rgb if int(d[0]["id"][1:].split("-")[0]) % 2 == 1]
    return fit_data, held, rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", default="sample_kb")
    ap.add_argument("--questions", default="tests/fixtures/sample_questions.jsonl")
    ap.add_argument("--split", default="", help="use only question rows with this `split` (dev); rows of other splits are never read further")
    ap.add_argument("--provider", default=None, help="embedding provider of --kb (default: settings)")
    ap.add_argument("--rgb-kb", default="", help="rgb_zh subset KB built by eval_beir.py (fit: even ids, held out: odd ids)")
    ap.add_argument("--rgb-queries", type=int, default=100)
    ap.add_argument("--eval-dir", default="/work/shared/eval")
    ap.add_argument("--features", default="", help="cache the collected features in this JSON file (re-used when it exists)")
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--e2e", action="store_true")
    args = ap.parse_args()
    settings = Settings(root=Path(args.kb), **({"embedding_provider": args.provider} if args.provider else {}))
    cache = Path(args.features) if args.features else None
    if cache is not None and cache.exists():
        saved = json.loads(cache.read_text(encoding="utf-8"))
        fit_data: Data = [(r, [(tuple(f), int(lab)) for f, lab in fs]) for r, fs in saved["fit"]]
        held: Data = [(r, [(tuple(f), int(lab)) for f, lab in fs]) for r, fs in saved["held"]]
        rows = []
    else:
        fit_data, held, rows = gather(args, settings)
        if cache is not None:
            cache.write_text(json.dumps({"fit": fit_data, "held": held}), encoding="utf-8")
    out: dict[str, object] = {"embedding": settings.embedding_provider, "fit_part_current": report_grader(fit_data, grade.WEIGHTS, grade.BIAS)}
    if held:
        out["held_out_current"] = report_grader(held, grade.WEIGHTS, grade.BIAS)
    if args.fit:
        w, b = fit(fit_data)
        fitted = tuple(round(float(v), 3) for v in w)
        b = calibrate_bias(fit_data, fitted, round(b, 3))
        out["fitted"] = {"weights": dict(zip(grade.FEATURES, fitted)), "bias": round(b, 3), "fit_part": report_grader(fit_data, fitted, round(b, 3))}
        if held:
            out["fitted"]["held_out"] = report_grader(held, fitted, round(b, 3))  # type: ignore[index]
    if args.e2e:
        out["e2e"] = e2e(settings, rows)
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
