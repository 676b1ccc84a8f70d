#!/usr/bin/env bash
# Runs every test: the Python suite, then the web part (Node tests with Pyodide, Playwright e2e in
# Debian's Chromium). Installs whatever is missing first (.venv, npm packages, chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
python -m pytest tests -q -p no:cacheprovider "$@"
bash web/scripts/setup.sh
bash web/scripts/test.sh
