#!/usr/bin/env bash
# Creates the unprivileged user Chromium runs as when Verdict runs as root (see README, "Live runs"), if missing.
#   VERDICT_BROWSER_USER (default verdict-browser)
set -euo pipefail
user="${VERDICT_BROWSER_USER:-verdict-browser}"
if [ "$(id -u)" != 0 ]; then exit 0; fi
if ! id -u "$user" >/dev/null 2>&1; then
  echo "› Creating the unprivileged user $user for the runner's browser…"
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
fi
