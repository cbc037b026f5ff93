#!/usr/bin/env bash
# Quick start: set up kb, index the bundled sample_kb and answer from it — offline, no keys.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export KB_ROOT="$PWD/sample_kb"
if ! .venv/bin/kb index; then  # e.g. an index left by an older kb with other embedding parameters
  echo "rebuilding sample_kb's index" >&2
  .venv/bin/kb index --rebuild
fi
echo "\$ kb search \"cache.ttl_seconds\" -k 3" >&2
.venv/bin/kb search "cache.ttl_seconds" -k 3
if .venv/bin/kb ask --help >/dev/null 2>&1; then
  echo "\$ kb ask \"How do I roll back a bad orders-api deploy?\"" >&2
  .venv/bin/kb ask "How do I roll back a bad orders-api deploy?"
fi
