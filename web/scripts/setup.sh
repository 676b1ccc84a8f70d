#!/usr/bin/env bash
# Install what the web part needs and build everything it serves into public/. Idempotent.
#   - Chromium from Debian's packages (for the Playwright e2e tests), when /usr/bin/chromium is missing
#   - npm ci in web/ and web/demo/react/
#   - micropip's wheel (pinned by hash) for the self-hosted Pyodide lock file
#   - node web/scripts/build.mjs: wheel + manifest, public/luminair, public/pyscript, public/react
set -euo pipefail
WEB="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(dirname "$WEB")"
cd "$REPO"

if [ -x "$REPO/.venv/bin/python" ]; then PY="$REPO/.venv/bin/python"; else PY="${PYTHON:-python3}"; fi
export PYTHON="$PY"

if [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing chromium (Debian package)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

npm_install() {  # npm ci when the lock file changed since the last install, else nothing
  local dir="$1" stamp="$1/node_modules/.luminair-lock-sha"
  local want; want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  echo "setup: npm ci in ${dir#"$REPO"/}"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
}
npm_install "$WEB"
npm_install "$WEB/demo/react"

if ! ls "$WEB/.cache"/micropip-*.whl >/dev/null 2>&1; then
  echo "setup: fetching micropip (hash-pinned)"
  mkdir -p "$WEB/.cache"
  "$PY" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.14 \
    --require-hashes -r "$WEB/scripts/micropip.txt" -d "$WEB/.cache"
fi

if [ ! -f "$REPO/public/proof.bin" ] || [ ! -f "$REPO/public/settings.bin" ]; then
  echo "setup: writing the sample proof (python -m luminair.prover.demo --no-serve)"
  "$PY" -m luminair.prover.demo --no-serve
fi

node "$WEB/scripts/build.mjs"
