#!/bin/sh
# Starts Chromium as the unprivileged browser user, with its sandbox, for a Verdict process that runs as root.
# server/browser/launch.ts points Playwright's executablePath here and sets:
#   VERDICT_BROWSER_USER      the user (and group) to become, e.g. verdict-browser
#   VERDICT_BROWSER_CHROMIUM  the real Chromium binary
# Playwright talks to the browser over inherited pipes (fds 3 and 4), which survive the exec below. The profile
# directory Playwright made (as root) is handed to the user first so the browser can write to it.
set -eu
: "${VERDICT_BROWSER_USER:?VERDICT_BROWSER_USER is not set}"
: "${VERDICT_BROWSER_CHROMIUM:?VERDICT_BROWSER_CHROMIUM is not set}"
profile=""
for arg in "$@"; do
  case "$arg" in
    --user-data-dir=*) profile="${arg#--user-data-dir=}" ;;
  esac
done
if [ -n "$profile" ]; then
  chown -R "$VERDICT_BROWSER_USER:" "$profile"
  export HOME="$profile"
fi
exec setpriv --reuid="$VERDICT_BROWSER_USER" --regid="$VERDICT_BROWSER_USER" --clear-groups -- "$VERDICT_BROWSER_CHROMIUM" "$@"
