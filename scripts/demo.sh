#!/usr/bin/env bash
# Installs everything, proves the bundled example model into public/, builds the web assets and
# serves public/ on 127.0.0.1 (the URL is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
python -m luminair.prover.demo --no-serve
bash web/scripts/setup.sh
exec python -m luminair.prover.demo --serve-only "$@"
