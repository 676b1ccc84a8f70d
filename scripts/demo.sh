#!/usr/bin/env bash
# Installs, proves the bundled example into public/, builds the web assets and serves public/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
if [ -f web/scripts/setup.sh ]; then bash web/scripts/setup.sh; fi
exec python -m luminair.prover.demo "$@"
