#!/usr/bin/env bash
# Installs everything, proves the bundled example model into public/, builds the web assets and
# serves public/ on 127.0.0.1, printing the URL of each demo page.
#   bash scripts/demo.sh [--port N]     # N defaults to 8000; a taken port is named and a free one used
# Set-up steps print one line each; a step's full output is shown only when it fails (warnings and
# errors on stderr always show).
set -euo pipefail
cd "$(dirname "$0")/.."

LOG="$(mktemp "${TMPDIR:-/tmp}/luminair-demo.XXXXXX")"
trap 'rm -f "$LOG"' EXIT

step() {  # step "what" command...: stdout into $LOG, shown (with the exit code) only on failure
  local what="$1"; shift
  printf 'demo: %s\n' "$what"
  local rc=0
  "$@" >"$LOG" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "demo: $what failed (exit $rc); its output:" >&2
    cat "$LOG" >&2
    exit "$rc"
  fi
}

step "installing the Python side into .venv" bash scripts/setup.sh
. .venv/bin/activate
step "proving the bundled MLP 64-64-10 (ONNX) into public/" python -m luminair.prover.demo --no-serve
step "building the web assets into public/ (first run: npm packages, Chromium)" bash web/scripts/setup.sh
rm -f "$LOG"
trap - EXIT
exec python scripts/serve_demo.py "$@"
