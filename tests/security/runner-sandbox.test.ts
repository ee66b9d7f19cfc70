/**
 * Security review H4: the runner's Chromium opens untrusted pages, so it must keep its sandbox and must not run as
 * root. As root, Verdict starts it as the unprivileged browser user (scripts/browser-user.sh creates it); without
 * that user it refuses to launch unless the admin opts out with VERDICT_RUNNER_NO_SANDBOX=1.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { browserIsolation, launchChromium } from "../../server/browser/launch";
import { loadConfig } from "../../server/config";
import { browserUserSkipReason, chromiumSkipReason, titled } from "../helpers/requirements";

const browserConfig = loadConfig();
const chromiumPath = browserConfig.chromiumPath;
const noChromium = chromiumSkipReason();
const haveChromium = noChromium === null;
if (!haveChromium) console.warn(`Skipping browser sandbox tests: no Chromium at ${chromiumPath} (apt-get install -y chromium, or set CHROMIUM_PATH).`);

describe("how the browser is isolated", () => {
  const user = (name: string) => (name === "verdict-browser" ? { uid: 999, gid: 995 } : name === "toor" ? { uid: 0, gid: 0 } : null);

  it("as root: the unprivileged browser user, or a clear refusal naming the fix", () => {
    expect(browserIsolation(loadConfig({}), 0, user)).toEqual({ kind: "sandbox-as-user", user: "verdict-browser", uid: 999, gid: 995 });
    expect(() => browserIsolation(loadConfig({ VERDICT_BROWSER_USER: "nobody-here" }), 0, user)).toThrow(
      /Chromium cannot use its sandbox as root, and the unprivileged browser user "nobody-here" \(VERDICT_BROWSER_USER\) does not exist\. Create it with `scripts\/browser-user\.sh`.*VERDICT_RUNNER_NO_SANDBOX=1/,
    );
    expect(() => browserIsolation(loadConfig({ VERDICT_BROWSER_USER: "toor" }), 0, user)).toThrow(/"toor" is root; the browser user must be unprivileged/);
  });

  it("not root: Chromium's own sandbox; without the sandbox only when the admin says so, with a warning", () => {
    expect(browserIsolation(loadConfig({}), 1000, user)).toEqual({ kind: "sandbox" });
    const off = browserIsolation(loadConfig({ VERDICT_RUNNER_NO_SANDBOX: "1" }), 0, user);
    expect(off).toMatchObject({ kind: "no-sandbox" });
    expect(off.kind === "no-sandbox" && off.warning).toMatch(/^VERDICT_RUNNER_NO_SANDBOX=1: Chromium runs WITHOUT its sandbox as root/);
    expect(browserIsolation(loadConfig({ VERDICT_RUNNER_NO_SANDBOX: "0" }), 1000, user)).toEqual({ kind: "sandbox" });
  });
});

const asRoot = process.getuid?.() === 0;
const noBrowserUser = browserUserSkipReason();
if (haveChromium && noBrowserUser) console.warn(`Skipping the sandboxed launch test: ${noBrowserUser}.`);

describe.skipIf(!haveChromium || noBrowserUser !== null)(titled("the launched browser", noChromium ?? noBrowserUser), () => {
  it("runs with Chromium's sandbox, and not as root", async () => {
    // An unknown switch Chromium ignores, to find this launch's processes among the machine's.
    const marker = `--verdict-sandbox-probe=${process.pid}-${Date.now()}`;
    const browser = await launchChromium({ config: browserConfig, extraArgs: [marker] });
    try {
      const page = await browser.newPage();
      await page.goto("chrome://sandbox");
      const status = (await page.textContent("body")) ?? "";
      expect(status).toContain("You are adequately sandboxed.");
      expect(status).toMatch(/Seccomp-BPF sandbox\s*Yes/);
      // The browser process and all its descendants (zygotes, renderers, utilities) run as someone other than root.
      const rows = execFileSync("ps", ["-eo", "pid=,ppid=,user:32=,args="], { encoding: "utf8" })
        .split("\n")
        .map((l) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => ({ pid: m[1]!, ppid: m[2]!, user: m[3]!, args: m[4]! }));
      const root = rows.find((r) => r.args.includes(marker) && !r.args.includes("--type="));
      expect(root, "the browser process").toBeDefined();
      const tree = new Set([root!.pid]);
      for (let grew = true; grew;) {
        grew = false;
        for (const r of rows) {
          if (tree.has(r.ppid) && !tree.has(r.pid)) {
            tree.add(r.pid);
            grew = true;
          }
        }
      }
      const procs = rows.filter((r) => tree.has(r.pid));
      expect(procs.some((r) => r.args.includes("--type=renderer"))).toBe(true);
      for (const r of procs) {
        expect(r.args, "no process runs without the sandbox").not.toContain("--no-sandbox");
        if (asRoot) expect(r.user, r.args.slice(0, 120)).not.toBe("root");
      }
    } finally {
      await browser.close();
    }
  });

  it("a browser that does not start is reported with what the sandbox needs and the browser's own error", async () => {
    const failing = await launchChromium({ config: { ...browserConfig, chromiumPath: "/bin/false" } }).then(
      () => null,
      (e: Error) => e,
    );
    expect(failing?.name).toBe("BrowserSandboxError");
    expect(failing?.message).toMatch(
      /^Chromium did not start with its sandbox\. .*VERDICT_RUNNER_NO_SANDBOX=1 runs Chromium without it \(not recommended\)\.\n/,
    );
    expect(failing?.message).toContain("browserType.launch");
  });
});
