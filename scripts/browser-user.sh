#!/usr/bin/env bash
# Prepares the unprivileged user Chromium runs as when Verdict runs as root (docs/security.md, "The live runner"):
#   1. creates the user, if missing;
#   2. limits its network at the kernel (nftables): TCP to the runner's egress proxies on 127.0.0.1 and nothing else
#      (no UDP, so no WebRTC STUN/TURN or DNS of its own; no TCP around the proxy). Chromium's flags and the runner's
#      routes say the same, but a page that finds a way around them (WebRTC, a browser bug) meets this rule.
# Idempotent: run it at every boot (the rules live in the kernel, not on disk); the live-runner worker also runs it
# at start when it can. Needs root, and the nft command (Debian: apt-get install nftables) for step 2.
#   VERDICT_BROWSER_USER        (default verdict-browser)
#   VERDICT_RUNNER_PROXY_PORTS  (default 24600-24999) the ports the egress proxies listen on
set -euo pipefail
user="${VERDICT_BROWSER_USER:-verdict-browser}"
ports="${VERDICT_RUNNER_PROXY_PORTS:-24600-24999}"
if [ "$(id -u)" != 0 ]; then exit 0; fi
if ! id -u "$user" >/dev/null 2>&1; then
  echo "› Creating the unprivileged user $user for the runner's browser…"
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
fi
uid="$(id -u "$user")"
if ! [[ "$ports" =~ ^[[:space:]]*([0-9]+)[[:space:]]*-[[:space:]]*([0-9]+)[[:space:]]*$ ]]; then
  echo "browser-user.sh: VERDICT_RUNNER_PROXY_PORTS must be a range such as 24600-24999, got \"$ports\"" >&2
  exit 2
fi
from="${BASH_REMATCH[1]}"
to="${BASH_REMATCH[2]}"
if ! command -v nft >/dev/null 2>&1; then
  echo "warning: nftables is not installed, so the browser user's network is not limited at the kernel (WebRTC UDP and" >&2
  echo "         connections around the egress proxy stay possible). Install it (apt-get install -y nftables) and run" >&2
  echo "         scripts/browser-user.sh again as root; see docs/security.md." >&2
  exit 0
fi
table="verdict_browser_${uid}"
# One transaction: the table is created if missing, emptied, and filled, so the rules are never half there. Answers on
# connections others opened to the browser (a browser server's clients) go out; other TCP is answered with a reset
# (the browser fails at once instead of waiting), everything else is dropped.
if ! nft -f - <<EOF
table inet ${table}
delete table inet ${table}
table inet ${table} {
  chain output {
    type filter hook output priority filter; policy accept;
    meta skuid ${uid} ip daddr 127.0.0.1 tcp dport ${from}-${to} accept
    meta skuid ${uid} meta l4proto tcp ct direction reply accept
    meta skuid ${uid} meta l4proto tcp counter reject with tcp reset
    meta skuid ${uid} counter drop
  }
}
EOF
then
  echo "warning: could not install the browser user's network rules (nft failed; does this process have CAP_NET_ADMIN?)." >&2
  echo "         See docs/security.md for doing it at the host or container level." >&2
  exit 0
fi
echo "› Network rules for $user (uid $uid): TCP to 127.0.0.1:${from}-${to} only (nft table inet ${table})"
