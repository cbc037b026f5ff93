#!/usr/bin/env bash
# Quick side-by-side latency check on an already indexed KB: medians of N runs, one process at a time.
# Usage: scripts/bench_quick.sh KB_DIR [IDENTIFIER] [QUESTION]   (honours KB_EMBEDDING_PROVIDER)
set -euo pipefail
KB="${1:?usage: scripts/bench_quick.sh KB_DIR [IDENTIFIER] [QUESTION]}"
IDENT="${2:-cache.ttl_seconds}"
QUESTION="${3:-how do I roll back a deploy}"
N=7
BIN="$(cd "$(dirname "$0")/.." && pwd)/.venv/bin"
if [ ! -x "$BIN/kb" ]; then
  command -v kb >/dev/null || { echo "no kb found: run scripts/setup.sh or put kb on PATH" >&2; exit 2; }
  BIN="$(dirname "$(command -v kb)")"
fi
med() { sort -n | awk '{a[NR]=$1} END{printf "%.3f", a[int((NR+1)/2)]}'; }
t() {
  local s e rc=0
  s=$(date +%s.%N); "$@" >/dev/null 2>&1 || rc=$?; e=$(date +%s.%N)
  if [ "$rc" -gt 1 ]; then echo "failed (exit $rc): $*" >&2; exit 1; fi
  echo "$e - $s" | bc
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +'%F %H:%M UTC')"
echo "kb --help                      $(for _ in $(seq $N); do t "$BIN/kb" --help; done | med) s"
for tool in grep vector hybrid; do
  echo "cold kb search --tool $tool     $(for _ in $(seq $N); do t "$BIN/kb" search --kb "$KB" --tool "$tool" "$QUESTION"; done | med) s"
done
echo "kb index (no change)           $(for _ in $(seq $N); do t "$BIN/kb" index --kb "$KB"; done | med) s"
echo "bare rg --json -C 10 -F        $(for _ in $(seq $N); do t "$BIN/rg" --json -C 10 -F -e "$IDENT" "$KB"; done | med) s"
"$BIN/python" - "$KB" "$IDENT" "$QUESTION" <<'PY'
import statistics, sys, time
from kb_agent.retrieval.tools import Retriever
from kb_agent.settings import Settings
kb, ident, question = sys.argv[1:4]
r = Retriever(Settings(root=kb))
r.hybrid(question); r.grep(ident)
def p50(fn, n=15):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1000
print(f"warm grep_search '{ident}'       {p50(lambda: r.grep(ident, k=10)):.1f} ms")
print(f"warm hybrid '{question}'  {p50(lambda: r.hybrid(question, k=10)):.1f} ms")
PY
