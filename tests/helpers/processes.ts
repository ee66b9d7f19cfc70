/**
 * Verdict's processes started by a test as an operator would start them (the web server, `npm run worker`), each in
 * its own process group so that stopping it reaches what it started; their output is kept for assertions and for
 * the failure message.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestContext } from "./context";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface StartedProcess {
  name: string;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in its output (rejects if the process exits first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends `signal` to its process group and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The environment that points Verdict's processes at a test's installation (either engine). */
export function installationEnv(ctx: TestContext, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const db = ctx.config.postgresUrl
    ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl, VERDICT_DB: "" }
    : { VERDICT_DB: ctx.config.dbPath, VERDICT_DATABASE_URL: "" };
  return { ...process.env, ...db, VERDICT_DATA_DIR: ctx.config.dataDir, NEXT_TELEMETRY_DISABLED: "1", ...extra };
}

/** Starts `node --import tsx <script> …args` from the repository's folder. */
export function startTsx(name: string, script: string, args: string[], env: NodeJS.ProcessEnv, nodeFlags: string[] = []): StartedProcess {
  const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", path.join(repoRoot, script), ...args], {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  const listeners = new Set<() => void>();
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-1_000_000);
    for (const l of listeners) l();
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Its output has ended: a process can exit before the last lines it wrote have come through the pipes.
  let outputEnded = false;
  child.once("close", () => {
    outputEnded = true;
    for (const l of listeners) l();
  });
  const gone = () => outputEnded;
  return {
    name,
    child,
    output: () => out,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            done();
            resolve(m);
          } else if (gone()) {
            done();
            reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name} did not print ${pattern} within ${timeoutMs} ms:\n${out}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
      await exited;
    },
  };
}

/** The web server (tests/helpers/web-server-child.ts) on the test's installation; resolves once it listens. */
export async function startWebServer(ctx: TestContext, extra: Record<string, string | undefined> = {}): Promise<StartedProcess & { url: string }> {
  const web = startTsx("web server", "tests/helpers/web-server-child.ts", [], installationEnv(ctx, extra));
  const m = await web.waitFor(/\{"url":"([^"]+)"\}/);
  return Object.assign(web, { url: m[1]! });
}
