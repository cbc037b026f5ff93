"""Shared by the set sources: resolve gold anchors to line ranges, assign the fixed dev/test split, write JSONL.

A gold spec is (path, start, end): start/end are a 1-based line number or a substring of the line
(the first line at/after the previous anchor that contains it); end None = the start line.
The split is stratified by (lang, kind) and fixed by a seeded hash of the id: within each stratum the
ids sorted by sha256(SEED + id), the first round(0.4 * n) are dev. It never depends on kb's output.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path

SEED = "kb-issue-9-split-v1"
DEV_FRACTION = 0.4


def _find(lines: list[str], anchor: int | str, after: int, where: str) -> int:
    if isinstance(anchor, int):
        if not 1 <= anchor <= len(lines):
            raise SystemExit(f"{where}: line {anchor} out of range")
        return anchor
    for i in range(after, len(lines)):
        if anchor in lines[i]:
            return i + 1
    raise SystemExit(f"{where}: anchor {anchor!r} not found after line {after}")


def resolve(root: Path, spec: tuple, where: str) -> dict:
    path, start, end = (spec + (None,))[:3] if len(spec) == 2 else spec
    lines = (root / path).read_text(encoding="utf-8").split("\n")
    s = _find(lines, start, 0, f"{where} {path}")
    e = s if end is None else _find(lines, end, s - 1, f"{where} {path}")
    return {"path": path, "start_line": s, "end_line": e}


def split_of(rows: list[dict]) -> dict[str, str]:
    strata: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in rows:
        strata[(r["lang"], r["kind"])].append(r["id"])
    out: dict[str, str] = {}
    for ids in strata.values():
        ids.sort(key=lambda i: hashlib.sha256((SEED + i).encode()).hexdigest())
        n_dev = round(DEV_FRACTION * len(ids))
        for n, i in enumerate(ids):
            out[i] = "dev" if n < n_dev else "test"
    return out


def build(root: Path, prefix: str, questions: list[tuple], out: Path, *, only_split: str | None = None) -> None:
    """questions: (lang, query_type, kind, question, [gold specs], [must_contain]) in file order;
    `only_split="dev"` puts every row in one split (a set written only to tune on)."""
    rows: list[dict] = []
    counters: dict[str, int] = defaultdict(int)
    for lang, qtype, kind, question, gold, must in questions:
        counters[lang] += 1
        qid = f"{prefix}-{lang}-{counters[lang]:03d}"
        rows.append({
            "id": qid, "split": "", "lang": lang, "query_type": qtype, "kind": kind, "question": question,
            "answerable": kind != "unanswerable",
            "gold": [resolve(root, tuple(g), qid) for g in gold],
            "must_contain": must,
        })
    split = split_of(rows)
    for r in rows:
        r["split"] = only_split or split[r["id"]]
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} rows to {out}")


def cli(doc: str | None, default_corpus: Path, prefix: str, questions: list[tuple], out: Path, *, only_split: str | None = None) -> int:
    """A set source's command line: `--corpus DIR` (default `default_corpus`), then `build`."""
    import argparse

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(default_corpus))
    a = ap.parse_args()
    build(Path(a.corpus), prefix, questions, out, only_split=only_split)
    return 0
