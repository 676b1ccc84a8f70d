#!/usr/bin/env bash
# Installs the Python side into .venv (idempotent). Used by the demo and test commands.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
if ! python -c "import luminair.prover, numpy, onnx, pytest, hypothesis, onnxruntime, playwright, ray" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.installed ]; then
  python -m pip install -q --upgrade pip
  python -m pip install -q -e '.[prover,dev,ray]'
  touch .venv/.installed
fi
