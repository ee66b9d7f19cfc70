#!/usr/bin/env bash
# Verdict quick start: installs what is missing (Chromium, npm packages), builds the app, records the demo data
# into the embedded default store (SQLite file + ./data), then serves the dashboard with one worker beside it
# (scripts/serve.ts: restarted if it dies, stopped when the server exits).
#   PORT (default 3000), HOST (default 127.0.0.1), VERDICT_DB, VERDICT_DATA_DIR, CHROMIUM_PATH, VERDICT_BROWSER_USER
set -euo pipefail
cd "$(dirname "$0")/.."

node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<9)) { console.error("Verdict needs Node.js >= 20.9; this is "+process.version); process.exit(1) }'

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "› Chromium not found at $CHROMIUM; installing Debian's chromium…"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core
  else
    echo "Cannot install Chromium without root. Run:  sudo apt-get install -y chromium   (or set CHROMIUM_PATH)" >&2
    exit 1
  fi
fi

# As root, the runner's Chromium runs as an unprivileged user so it can keep its sandbox, and that user's network is
# limited to the runner's egress proxies by nftables (docs/security.md).
if [ "$(id -u)" = 0 ] && ! command -v nft >/dev/null 2>&1; then
  echo "› Installing Debian's nftables for the browser user's network rules…"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables || echo "warning: nftables could not be installed; see docs/security.md" >&2
fi
bash scripts/browser-user.sh

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› Installing npm packages…"
  # `npm install` (not `npm ci`): package-lock.json lists no entries for other platforms' optional packages
  # (the Tailwind and esbuild native builds), which `npm ci` refuses; `npm install` still follows the lock.
  npm install --no-audit --no-fund
fi

# Builds when there is no build or a source changed since the last build *started* (the browser tests' rule too), so
# an edit made while a build ran is never taken as built.
node scripts/build-if-stale.mjs

# SQLite is brought up to date whenever it is opened; PostgreSQL (VERDICT_DATABASE_URL=postgres://…) only by this.
npm run -s cli -- migrate

echo "› Loading demo data (recorded through Chromium on the bundled demo sites; skipped when already there)…"
npm run -s cli -- demo

PORT="${PORT:-3000}"
HOST="${HOST:-127.0.0.1}"
# The web server only enqueues background work; the worker beside it runs every job (imports, judge calls, live runs,
# on the demo sites it serves on ${VERDICT_DEMO_PORT:-4517}) under its own memory cap, and is restarted if it dies.
echo "› Verdict is starting on http://$HOST:$PORT, with a worker beside it"
exec node --import tsx scripts/serve.ts -p "$PORT" -H "$HOST"
