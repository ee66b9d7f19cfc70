/**
 * The browser user's network rules, as the live runner sees them: a kernel firewall (nftables) that lets the
 * unprivileged user Chromium runs as (VERDICT_BROWSER_USER) open TCP connections to the runner's egress proxies
 * (127.0.0.1, VERDICT_RUNNER_PROXY_PORTS) and nothing else. Chromium's flags and the run's routes keep pages on the
 * proxy too, but WebRTC's STUN/TURN traffic goes around every proxy setting: only the kernel stops it for sure.
 *
 * scripts/browser-user.sh installs the rules (root, nftables). The worker checks them at start and, when it runs as
 * root and they are missing or stale, runs that script itself; when it cannot, it says so loudly and goes on (the
 * other layers still hold), naming the step an operator takes. Only a browser started as a user of its own can be
 * told apart by the kernel: a non-root installation runs Chromium as its own user, and a remote browser runs
 * elsewhere; for both the network layer is the deployment's to provide (docs/security.md).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_RUNNER_PROXY_PORTS, runtimeEnvironment, type PortRange } from "../../config";

/** The script that creates the browser user and installs its rules. */
export const BROWSER_USER_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "scripts", "browser-user.sh");

export const BROWSER_NETWORK_HOWTO =
  "As root, run `bash scripts/browser-user.sh` at every boot (it needs nftables: apt-get install -y nftables), or block the browser user's UDP and its TCP other than to the egress proxies at the host; see docs/security.md";

export function browserNetworkTable(uid: number): string {
  return `verdict_browser_${uid}`;
}

export type BrowserNetworkState = { kind: "in-place"; detail: string } | { kind: "missing"; detail: string } | { kind: "unknown"; detail: string };

/** Whether the rules for `uid` are installed and let exactly `ports` through. */
export function browserNetworkState(uid: number, ports: PortRange = DEFAULT_RUNNER_PROXY_PORTS): BrowserNetworkState {
  const table = browserNetworkTable(uid);
  const r = spawnSync("nft", ["list", "table", "inet", table], { encoding: "utf8" });
  if (r.error) return { kind: "unknown", detail: `the nft command is not available (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` };
  if (r.status !== 0) {
    const why = (r.stderr || "").trim().split("\n")[0] ?? "";
    if (/No such file or directory|does not exist/i.test(why)) return { kind: "missing", detail: `nft table inet ${table} is not installed` };
    return { kind: "unknown", detail: `nft cannot list the rules (${why || `exit ${r.status}`}; does this process have CAP_NET_ADMIN?)` };
  }
  const text = r.stdout.replace(/\s+/g, " ");
  const allow = `meta skuid ${uid} ip daddr 127.0.0.1 tcp dport ${ports.from}-${ports.to} accept`;
  if (!text.includes(allow) || !new RegExp(`meta skuid ${uid} (counter packets \\d+ bytes \\d+ )?drop`).test(text)) {
    return { kind: "missing", detail: `nft table inet ${table} does not hold the rules for ports ${ports.from}-${ports.to}` };
  }
  return {
    kind: "in-place",
    detail: `the browser user (uid ${uid}) may open TCP connections to 127.0.0.1:${ports.from}-${ports.to} only (nft table inet ${table})`,
  };
}

/**
 * Makes sure the rules for the browser user are in place: checks them, and as root runs scripts/browser-user.sh
 * when they are not, from `env` (default: this process's environment, runtimeEnvironment()) with the user and the
 * ports given here. Returns the state found last; a state other than "in-place" is what the caller warns about.
 */
export function ensureBrowserNetworkRules(o: { user: string; uid: number; ports?: PortRange; env?: NodeJS.ProcessEnv }): BrowserNetworkState {
  const ports = o.ports ?? DEFAULT_RUNNER_PROXY_PORTS;
  const first = browserNetworkState(o.uid, ports);
  if (first.kind === "in-place" || process.getuid?.() !== 0) return first;
  const r = spawnSync("bash", [BROWSER_USER_SCRIPT], {
    encoding: "utf8",
    env: { ...(o.env ?? runtimeEnvironment()), VERDICT_BROWSER_USER: o.user, VERDICT_RUNNER_PROXY_PORTS: `${ports.from}-${ports.to}` },
  });
  const after = browserNetworkState(o.uid, ports);
  if (after.kind === "in-place") return after;
  const said = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n").filter(Boolean).slice(-2).join(" ");
  return { kind: after.kind, detail: `${after.detail}${said ? `; scripts/browser-user.sh said: ${said}` : ""}` };
}

/** The startup warning for rules that are not in place. */
export function browserNetworkWarning(user: string, state: BrowserNetworkState): string {
  return (
    `the runner's browser (user ${user}) is not limited at the network layer: ${state.detail}. A page could send UDP (WebRTC STUN/TURN) ` +
    `or connect around the egress proxy. ${BROWSER_NETWORK_HOWTO}.`
  );
}
