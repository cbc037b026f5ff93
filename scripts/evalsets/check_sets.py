"""Check the answer-level question sets mechanically and print their counts.

    python scripts/evalsets/check_sets.py                      # every *.jsonl here, corpora from README defaults
    python scripts/evalsets/check_sets.py fastapi.jsonl --corpus ../shared/eval/fastapi_docs

Checks: ids unique; fields and values valid; gold files and lines exist; every must_contain item occurs
in the gold lines (case- and whitespace-insensitive; a list item = any of its forms), or — for `file` and
`mention` questions — names a gold file; a comparison has ≥ 2 gold ranges and must_contain[i] occurs in
gold[i]; unanswerable rows have no gold and no must_contain. Exit 1 on any problem.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
# ../shared/eval beside the repo, or beside the worktrees folder (/work/wt/<name> -> /work/shared)
EVAL = next((p for p in (HERE.parents[2] / "shared" / "eval", HERE.parents[3] / "shared" / "eval") if p.is_dir()), HERE.parents[2] / "shared" / "eval")
# set file -> default corpus root (the KB the questions are asked of)
CORPORA = {
    "fastapi.jsonl": EVAL / "fastapi_docs",
    "runbooks.jsonl": Path("/work/evaldata/prometheus-runbooks"),
    "runbooks_zh.jsonl": Path("/work/evaldata/prometheus-runbooks"),
    "cheats.jsonl": Path("/work/evaldata/cheats"),
    "zhdocs.jsonl": Path("/work/evaldata/pingcap-docs-cn"),
    "rustbook.jsonl": Path("/work/evaldata/rust-book"),
    "es6.jsonl": Path("/work/evaldata/es6tutorial"),
    "rustbook_dev2.jsonl": Path("/work/evaldata/rust-book"),
    "es6_dev2.jsonl": Path("/work/evaldata/es6tutorial"),
    "fastapi_dev3.jsonl": EVAL / "fastapi_docs",
    "mkvue.jsonl": Path("/work/evaldata/x"),
    "cheats_dev2.jsonl": Path("/work/evaldata/cheats"),
    "devhints.jsonl": Path("/work/evaldata/devhints"),
    # session 16: six small dev sets over six more corpora (scripts/evalsets/README.md)
    "s16_nushell.jsonl": Path("/work/evaldata/s16/nu"),
    "s16_ripgrep_style.jsonl": Path("/work/evaldata/s16/mix"),
    "s16_bash_k8s.jsonl": Path("/work/evaldata/s16/bb"),
    "s16_arthas.jsonl": Path("/work/evaldata/s16/arthas"),
    "s16_rocketmq.jsonl": Path("/work/evaldata/s16/rmq"),
    "s16_flightrules.jsonl": Path("/work/evaldata/s16/gfr"),
    "s17_etcdops.jsonl": Path("/work/evaldata/s17/etcdops"),
    "s17_dockerzh.jsonl": Path("/work/evaldata/s17/dockerzh"),
    "s17_clireadme.jsonl": Path("/work/evaldata/s17/clireadme"),
    "s17_k8stasks.jsonl": Path("/work/evaldata/s17/k8stasks"),
    "s17_sdprimer.jsonl": Path("/work/evaldata/s17/sdprimer"),
    "s17_redisdoc.jsonl": Path("/work/evaldata/s17/redisdoc"),
    "s17_advjava.jsonl": Path("/work/evaldata/s17/advjava"),
    "s17_dolphin.jsonl": Path("/work/evaldata/s17/dolphin"),
    "s17_secretkb.jsonl": Path("/work/evaldata/s17/secretkb"),
    "s17_zhmanual.jsonl": Path("/work/evaldata/s17/zhmanual"),
    "s18_apisix.jsonl": Path("/work/evaldata/s18/apisix"),
    "s18_osrunbooks.jsonl": Path("/work/evaldata/s18/osrunbooks"),
    "s18_deno.jsonl": Path("/work/evaldata/s18/nodeapi"),
    "s18_bashzh.jsonl": Path("/work/evaldata/s18/bashzh"),
    "s18_uv.jsonl": Path("/work/evaldata/s18/uv"),
    "s19_helm.jsonl": Path("/work/evaldata/s19/helm"),
    "s19_podman.jsonl": Path("/work/evaldata/s19/podman"),
    "s19_vitezh.jsonl": Path("/work/evaldata/s19/vitezh"),
    "s19_caddy.jsonl": Path("/work/evaldata/s19/caddy"),
    "s20_antd.jsonl": Path("/work/evaldata/s20/antd"),
    "s20_brew.jsonl": Path("/work/evaldata/s20/brew"),
    "s20_kubeasz.jsonl": Path("/work/evaldata/s20/kubeasz"),
    "s20_ocprun.jsonl": Path("/work/evaldata/s20/ocprun"),
    "s21_lazygit.jsonl": Path("/work/evaldata/s21/lazygit"),
    "s21_starship.jsonl": Path("/work/evaldata/s21/starship"),
    "s21_mise.jsonl": Path("/work/evaldata/s21/mise"),
    "s21_shardingzh.jsonl": Path("/work/evaldata/s21/sharding"),
    "s22_helix.jsonl": Path("/work/evaldata/s22/helix"),
    "s22_hexo.jsonl": Path("/work/evaldata/s22/hexo"),
    "s22_apollozh.jsonl": Path("/work/evaldata/s22/apollo"),
    "s22_rclone.jsonl": Path("/work/evaldata/s22/rclone"),
    "s23_halozh.jsonl": Path("/work/evaldata/s23/halo"),
    "s23_pnpm.jsonl": Path("/work/evaldata/s23/pnpm"),
    "s23b_nacoszh.jsonl": Path("/work/evaldata/s23stage/nacos"),
    "s23b_nerdctl.jsonl": Path("/work/evaldata/s23stage/nerdctl"),
    "s23b_cnpg.jsonl": Path("/work/evaldata/s23stage/cnpg"),
    "s23b_pnpm.jsonl": Path("/work/evaldata/s23stage/pnpm"),
    "s23_cnpg.jsonl": Path("/work/evaldata/s23/cnpg"),
    "s23_nerdctl.jsonl": Path("/work/evaldata/s23/nerdctl"),
    "s24_onepanel.jsonl": Path("/work/evaldata/s24/onepanel"),
    "s24_xxljob.jsonl": Path("/work/evaldata/s24/xxljob"),
    "s24_traefik.jsonl": Path("/work/evaldata/s24/traefik"),
    "s24_task.jsonl": Path("/work/evaldata/s24/task"),
    "s24_chezmoi.jsonl": Path("/work/evaldata/s24/chezmoi"),
    "s24_satoken.jsonl": Path("/work/evaldata/s24/satoken"),
    "s25_pihole.jsonl": Path("/work/evaldata/s25/pihole"),
    "s25_goreleaser.jsonl": Path("/work/evaldata/s25/goreleaser"),
    "s25_gitea.jsonl": Path("/work/evaldata/s25/gitea"),
    "s25_egg.jsonl": Path("/work/evaldata/s25/egg"),
    "s25_alist.jsonl": Path("/work/evaldata/s25/alist"),
    "s25_just.jsonl": Path("/work/evaldata/s25/just"),
    "s25b_argocd.jsonl": Path("/work/evaldata/s25b/argocd"),
    "s25b_prettier.jsonl": Path("/work/evaldata/s25b/prettier"),
    "s25b_seata.jsonl": Path("/work/evaldata/s25b/seata"),
    "s26_ohmyzsh.jsonl": Path("/work/evaldata/s26/ohmyzsh"),
    "s26_wezterm.jsonl": Path("/work/evaldata/s26/wezterm"),
    "s26_vant.jsonl": Path("/work/evaldata/s26/vant"),
    "s26_juicefs.jsonl": Path("/work/evaldata/s26/juicefs"),
    "s26_gitextras.jsonl": Path("/work/evaldata/s26/gitextras"),
    "s26_rustdesk.jsonl": Path("/work/evaldata/s26/rustdesk"),
    "s26b_frp.jsonl": Path("/work/evaldata/s26b/frp"),
    "s26b_httpie.jsonl": Path("/work/evaldata/s26b/httpie"),
    "s26b_umi.jsonl": Path("/work/evaldata/s26b/umi"),
    "s27_gin.jsonl": Path("/work/evaldata/s27/gin"),
    "s27_mastodon.jsonl": Path("/work/evaldata/s27/mastodon"),
    "s27_ytdlp.jsonl": Path("/work/evaldata/s27/ytdlp"),
    "s27_hugo.jsonl": Path("/work/evaldata/s27/hugo"),
    "s27_element.jsonl": Path("/work/evaldata/s27/element"),
    "s27_nestjs.jsonl": Path("/work/evaldata/s27/nestjs"),
    "s27b_vuerouter.jsonl": Path("/work/evaldata/s27b/vuerouter"),
    "s27b_compose.jsonl": Path("/work/evaldata/s27b/compose"),
    "s27b_sealos.jsonl": Path("/work/evaldata/s27b/sealos"),
    "s28_gorm.jsonl": Path("/work/evaldata/s28/gorm"),
    "s28_fluentbit.jsonl": Path("/work/evaldata/s28/fluentbit"),
    "s28_curl.jsonl": Path("/work/evaldata/s28/curl"),
    "s28_jumpserver.jsonl": Path("/work/evaldata/s28/jumpserver"),
    "s29_vitepress.jsonl": Path("/work/evaldata/s29/vitepress"),
    "s29_npm.jsonl": Path("/work/evaldata/s29/npm"),
    "s29_prometheus.jsonl": Path("/work/evaldata/s29/prometheus"),
    "s29_mybatisplus.jsonl": Path("/work/evaldata/s29/mybatisplus"),
    "s30_mkdocs.jsonl": Path("/work/evaldata/s30/mkdocs"),
    "s30_mermaid.jsonl": Path("/work/evaldata/s30/mermaid"),
    "s30_dockerlib.jsonl": Path("/work/evaldata/s30/dockerlib"),
    "s30_eventmesh.jsonl": Path("/work/evaldata/s30/eventmesh"),
    "s31_kind.jsonl": Path("/work/evaldata/s31/kind"),
    "s31_certmgr.jsonl": Path("/work/evaldata/s31/certmgr"),
    "s31_karmada.jsonl": Path("/work/evaldata/s31/karmada"),
    "s31_zellij.jsonl": Path("/work/evaldata/s31/zellij"),
    "s32_k3d.jsonl": Path("/work/evaldata/s32/k3d"),
    "s32_flux.jsonl": Path("/work/evaldata/s32/flux"),
    "s32_emqx.jsonl": Path("/work/evaldata/s32/emqx"),
    "s32_greptime.jsonl": Path("/work/evaldata/s32/greptime"),
}
LANGS = {"en", "zh"}
QUERY_TYPES = {"exact", "conceptual", "relational", "file_discovery"}
KINDS = {"howto", "lookup", "comparison", "mention", "file", "explain", "unanswerable"}
PATH_KINDS = {"file", "mention"}


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().lower()


def forms(item: str | list[str]) -> list[str]:
    return [item] if isinstance(item, str) else list(item)


def gold_text(root: Path, g: dict, cache: dict[str, list[str]]) -> str | None:
    if g["path"] not in cache:
        f = root / g["path"]
        cache[g["path"]] = f.read_text(encoding="utf-8").split("\n") if f.is_file() else []
    lines = cache[g["path"]]
    if not (1 <= g["start_line"] <= g["end_line"] <= len(lines)):
        return None
    return "\n".join(lines[g["start_line"] - 1 : g["end_line"]])


def check_row(r: dict, root: Path, cache: dict[str, list[str]]) -> list[str]:
    errs: list[str] = []
    for key, allowed in (("lang", LANGS), ("query_type", QUERY_TYPES), ("kind", KINDS), ("split", {"dev", "test"})):
        if r.get(key) not in allowed:
            errs.append(f"{key}={r.get(key)!r}")
    if not isinstance(r.get("question"), str) or not r["question"].strip():
        errs.append("empty question")
    unans = r.get("kind") == "unanswerable"
    if r.get("answerable") is unans:
        errs.append("answerable disagrees with kind")
    gold, must = r.get("gold", []), r.get("must_contain", [])
    if unans:
        if gold or must:
            errs.append("unanswerable with gold/must_contain")
        return errs
    if not gold or not must:
        errs.append("answerable without gold or must_contain")
        return errs
    texts = []
    for g in gold:
        t = gold_text(root, g, cache)
        if t is None:
            errs.append(f"gold {g['path']}:{g['start_line']}-{g['end_line']} does not exist")
        texts.append(t or "")
    gold_paths = {g["path"] for g in gold}
    if r["kind"] == "comparison":
        if len(gold) < 2 or len(must) < 2:
            errs.append("comparison needs ≥ 2 gold ranges and ≥ 2 must_contain items")
        if len({(g["path"], g["start_line"]) for g in gold}) < 2:
            errs.append("comparison sides share one range")
        for i, item in enumerate(must):
            side = norm(texts[i]) if i < len(texts) else ""
            if not any(norm(f) in side for f in forms(item)):
                errs.append(f"side {i}: {item!r} not in gold[{i}]")
        return errs
    alltext = norm("\n".join(texts))
    for item in must:
        fs = forms(item)
        if r["kind"] in PATH_KINDS and any(f in gold_paths or (root / f).is_file() for f in fs):
            if not any(f in gold_paths for f in fs) and not any(Path(f).parts[1:] == Path(p).parts[1:] for f in fs for p in gold_paths):
                errs.append(f"path {item!r} is not a gold file (nor its translation)")
            continue
        if not any(norm(f) in alltext for f in fs):
            errs.append(f"{item!r} not in the gold lines")
    return errs


def check_file(path: Path, root: Path) -> tuple[list[dict], list[str]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems: list[str] = []
    dup = [i for i, n in Counter(r.get("id") for r in rows).items() if n > 1]
    if dup:
        problems.append(f"duplicate ids: {dup}")
    cache: dict[str, list[str]] = {}
    for r in rows:
        problems += [f"{r.get('id')}: {e}" for e in check_row(r, root, cache)]
    return rows, problems


def summary(rows: list[dict]) -> str:
    out = [f"{len(rows)} questions; " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r['split'] for r in rows).items()))]
    for split in ("dev", "test"):
        sub = [r for r in rows if r["split"] == split]
        c = Counter((r["lang"], r["kind"]) for r in sub)
        langs = sorted({r["lang"] for r in rows})
        out.append(f"  {split}: " + "; ".join(
            f"{lang} {sum(v for (l2, _), v in c.items() if l2 == lang)} (" + ", ".join(f"{k} {c[(lang, k)]}" for k in sorted(KINDS) if c[(lang, k)]) + ")"
            for lang in langs))
    qt = Counter(r["query_type"] for r in rows)
    out.append("  query types: " + ", ".join(f"{k} {v}" for k, v in sorted(qt.items())))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", help="set files (default: every *.jsonl beside this script)")
    ap.add_argument("--corpus", default=None, help="corpus root (default from the set's file name)")
    a = ap.parse_args(argv)
    files = [Path(s) if Path(s).exists() else HERE / s for s in a.sets] or sorted(HERE.glob("*.jsonl"))
    bad = 0
    for f in files:
        root = Path(a.corpus) if a.corpus else CORPORA.get(f.name)
        if root is None or not root.is_dir():
            print(f"{f.name}: corpus {root} not found; pass --corpus", file=sys.stderr)
            bad += 1
            continue
        rows, problems = check_file(f, root)
        print(f"{f.name} ({root}): {summary(rows)}")
        for p in problems:
            print(f"  PROBLEM {p}")
        bad += len(problems)
    print("OK" if not bad else f"{bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
