#!/usr/bin/env bash
# Quick start: set up kb, index the bundled sample_kb and answer from it — offline, no keys.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export KB_ROOT="$PWD/sample_kb"
.venv/bin/kb index
echo "\$ kb search \"cache.ttl_seconds\" -k 3" >&2
.venv/bin/kb search "cache.ttl_seconds" -k 3
if .venv/bin/kb ask --help >/dev/null 2>&1; then
  echo "\$ kb ask \"How do I roll back a bad orders-api deploy?\"" >&2
  .venv/bin/kb ask "How do I roll back a bad orders-api deploy?"
fi
