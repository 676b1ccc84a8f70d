#!/usr/bin/env bash
# Runs every test: Python unit/integration tests, then the web part (Pyodide under Node and
# Playwright in Debian's Chromium). Installs whatever is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
python -m pytest tests -q -p no:cacheprovider "$@"
if [ -f web/scripts/setup.sh ]; then
  bash web/scripts/setup.sh
  bash web/scripts/test.sh
fi
