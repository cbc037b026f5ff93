"""Dump the chunk boundaries kb makes for the BEIR corpora (as eval_beir.py writes them), or compare two dumps.

Answers "did a chunker change move chunk boundaries on these sets?" without embedding anything: run it
with the interpreter of each tree, then compare.

    OLD/.venv/bin/python scripts/chunk_boundaries.py dump old.json
    .venv/bin/python scripts/chunk_boundaries.py dump new.json
    python scripts/chunk_boundaries.py compare old.json new.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import _benchlib as B

SETS = ("scifact", "cmrc2018", "rgb_zh")


def dump(out: Path) -> None:
    from kb_agent.corpus.chunking import parse_document

    eval_dir = B.eval_dir_or_exit(None)
    result: dict[str, dict[str, list[tuple[int, int, str]]]] = {}
    for name in SETS:
        docs: dict[str, list[tuple[int, int, str]]] = {}
        with (eval_dir / name / "corpus.jsonl").open(encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                title, body = d.get("title", ""), d.get("text", "")
                text = f"# {title}\n\n{body}\n" if title else f"{body}\n"
                doc = parse_document(f"{d['_id']}.md", text)
                docs[d["_id"]] = [(c.start_line, c.end_line, hashlib.sha1(c.text.encode()).hexdigest()[:12]) for c in doc.chunks]
        result[name] = docs
    out.write_text(json.dumps(result), encoding="utf-8")


def compare(old: Path, new: Path) -> None:
    a, b = json.loads(old.read_text(encoding="utf-8")), json.loads(new.read_text(encoding="utf-8"))
    for name in a:
        da, db = a[name], b.get(name, {})
        moved = sorted(k for k in da if da[k] != db.get(k))
        print(f"{name}: {len(da)} docs, {sum(map(len, da.values()))} → {sum(map(len, db.values()))} chunks; "
              f"{len(moved)} docs with different chunks {moved[:5]}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "dump":
        dump(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        raise SystemExit(__doc__)
