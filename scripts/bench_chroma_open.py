"""What Chroma's sync threshold costs a reader: open + first query, and whether processes agree.

Copies the vectors of an indexed KB's embedded collection into two temporary stores written the way
`kb index` writes (upserts of `embedding_batch_size` vectors): one with Chroma's default HNSW sync
threshold (1,000), one with kb's (`HNSW_CONFIG`). Then, in fresh processes, opens each store with
kb's direct reader and times open + the first query, and hashes the top 35 of 40 queries (the
difference of two stored vectors, so the neighbours lie deep in the graph). Prints medians and how
many different result lists the processes produced.

    python scripts/bench_chroma_open.py KB_ROOT [--runs 9]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _benchlib  # noqa: F401 - puts the repo on sys.path

CHILD = r"""
import hashlib, json, sys, time
t0 = time.perf_counter()
from kb_agent.index.chroma_reader import EmbeddedReader
r = EmbeddedReader(__import__("pathlib").Path(sys.argv[1]), "bench")
queries = json.load(open(sys.argv[2]))
r.query(queries[0], 35)
t1 = time.perf_counter()
tops = [[cid for cid, _ in r.query(q, 35)] for q in queries]
print(json.dumps({"open_first_query_s": t1 - t0, "tops": hashlib.md5(json.dumps(tops).encode()).hexdigest()}))
"""


def copy_store(vectors: list[list[float]], ids: list[str], paths: list[str], index_dir: Path, config: dict[str, object], batch: int) -> float:
    import chromadb

    client = chromadb.PersistentClient(path=str(index_dir / "chroma"))
    col = client.create_collection("bench", configuration={"hnsw": config}, embedding_function=None)  # type: ignore[arg-type]
    t = time.perf_counter()
    for i in range(0, len(ids), batch):
        col.upsert(ids=ids[i : i + batch], embeddings=vectors[i : i + batch], metadatas=[{"path": p} for p in paths[i : i + batch]])  # type: ignore[arg-type]
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kb", type=Path, help="an indexed KB root (embedded store)")
    ap.add_argument("--runs", type=int, default=9, help="fresh processes per store")
    args = ap.parse_args()

    import chromadb

    from kb_agent.index.manifest import Catalog
    from kb_agent.index.vectors import HNSW_CONFIG
    from kb_agent.settings import Settings

    cat = Catalog.open(args.kb / ".kb" / "catalog.sqlite", readonly=True)
    name = cat.get_meta("collection")
    cat.close()
    got = chromadb.PersistentClient(path=str(args.kb / ".kb" / "chroma")).get_collection(name, embedding_function=None).get(include=["embeddings", "metadatas"])
    ids = list(got["ids"])
    vectors = [[float(x) for x in v] for v in got["embeddings"]]
    paths = [str(m["path"]) for m in got["metadatas"]]
    rng = random.Random(7)
    order = list(range(len(ids)))
    rng.shuffle(order)  # not the store's order: as files are embedded
    ids, vectors, paths = [ids[i] for i in order], [vectors[i] for i in order], [paths[i] for i in order]
    queries = []
    for _ in range(40):
        a, b = rng.sample(range(len(vectors)), 2)
        queries.append([x - y for x, y in zip(vectors[a], vectors[b], strict=True)])
    batch = Settings(_env_file=None).embedding_batch_size  # type: ignore[call-arg]
    with tempfile.TemporaryDirectory() as tmp:
        qfile = Path(tmp) / "queries.json"
        qfile.write_text(json.dumps(queries))
        results = {}
        for label, config in (("chroma default (sync 1000)", {"space": "cosine"}), (f"kb (sync {HNSW_CONFIG['sync_threshold']})", dict(HNSW_CONFIG))):
            index_dir = Path(tmp) / hashlib.md5(label.encode()).hexdigest()
            write_s = copy_store(vectors, ids, paths, index_dir, config, batch)
            runs = [json.loads(subprocess.run([sys.executable, "-c", CHILD, str(index_dir), str(qfile)], capture_output=True, text=True, check=True,
                                              cwd=_benchlib.REPO).stdout) for _ in range(args.runs)]
            results[label] = {"write_s": round(write_s, 2), "open_first_query_median_s": round(statistics.median(r["open_first_query_s"] for r in runs), 3),
                              "different_top35_lists": len({r["tops"] for r in runs})}
    print(json.dumps({"kb": str(args.kb), "vectors": len(ids), "batch": batch, "runs": args.runs, "results": results}, indent=2))


if __name__ == "__main__":
    main()
