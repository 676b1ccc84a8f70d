#!/usr/bin/env bash
# The web part's tests: Node tests (utils, client protocol, zip, graph, Pyodide vs CPython, npm
# pack, types) and the Playwright e2e suite in Debian's Chromium. Rebuilds the wheel and
# public/luminair first (under a second, no network) so they match the verifier sources.
# Run `bash web/scripts/setup.sh` once before.
set -uo pipefail
WEB="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(dirname "$WEB")"
cd "$REPO"
if [ -x "$REPO/.venv/bin/python" ]; then PY="$REPO/.venv/bin/python"; else PY="${PYTHON:-python3}"; fi
export PYTHON="$PY"

node "$WEB/scripts/build.mjs" >/dev/null || { echo "web build failed"; exit 1; }

status=0
echo "== node --test web/test"
(cd "$WEB" && node --test --test-reporter=spec test/) || status=1
echo "== pytest e2e"
"$PY" -m pytest e2e -q -p no:cacheprovider || status=1
exit $status
