"""Does every process read the same vector graph? (docs/BENCHMARKS.md, finding 10)

Opens an indexed KB's embedded store with kb's direct reader in N fresh processes; each asks 40 deep queries
(the difference of two stored chunk vectors, whose neighbours lie far down the HNSW graph) at k 35 and 100 and
prints a digest of every result list. One digest for all processes means one graph; records that the graph on
disk lacks (printed as "outside the graph") are re-inserted by each process into a graph of its own.

    python scripts/same_graph.py PATH/TO/KB --processes 6
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kb_agent.index.vectors import records_outside_the_graph  # noqa: E402

PROBE = """
import hashlib, random, sys
from pathlib import Path
from kb_agent.index.chroma_reader import EmbeddedReader
r = EmbeddedReader(Path(sys.argv[1]), sys.argv[2])
got = r._bindings.get(r._id, None, None, None, 0, None, ["embeddings"], "default_tenant", "default_database")
vectors = [list(v) for v in got.embeddings]
rng, digest = random.Random(7), hashlib.sha1()
for _ in range(40):
    a, b = rng.sample(range(len(vectors)), 2)
    q = [float(x - y) for x, y in zip(vectors[a], vectors[b])]
    for k in (35, 100):
        digest.update(repr(r.query(q, k)).encode())
print(len(vectors), digest.hexdigest()[:12])
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kb", type=Path)
    ap.add_argument("--processes", type=int, default=6)
    args = ap.parse_args()
    index_dir = args.kb / ".kb"
    conn = sqlite3.connect(index_dir / "catalog.sqlite")
    (name,) = conn.execute("SELECT value FROM meta WHERE key = 'collection'").fetchone()
    conn.close()
    print(f"records outside the graph on disk: {records_outside_the_graph(index_dir / 'chroma')}")
    digests = [subprocess.run([sys.executable, "-c", PROBE, str(index_dir), name], capture_output=True, text=True, check=True).stdout.strip()
               for _ in range(args.processes)]
    print("\n".join(digests))
    print(f"{len(set(digests))} different result set(s) in {args.processes} processes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
