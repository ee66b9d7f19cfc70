/**
 * Large-trajectory bench (security review M8, issue 13): a 10,000-step trajectory with realistic per-step weight
 * (2 KB of thought, 30 Set-of-Marks elements) served by the app's tRPC router over HTTP in its own process
 * (scripts/bench/annotation-server.ts, with scripts/bench/loop-delay-probe.ts measuring that process's event loop).
 * The client opens it (cold, then again), steps through it window by window as the player prefetches, jumps to the
 * end, and meanwhile pings a cheap procedure (accounts.session) every 20 ms to see what other users would wait.
 *
 * Reports the first payload's and a window's size, the server's event-loop delay (max, p99) and the pings' worst wait.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeDatabase } from "../../db/database";
import { createAppContext } from "../../server/context";
import { loadConfig } from "../../server/config";
import { createAccount } from "../../server/services/accounts";
import { STEP_WINDOW } from "../../server/domain/player/paging";
import { seedLongTrajectory } from "../../tests/helpers/long-trajectory";
import { median, percentile, type BenchFigure } from "./types";

const STEPS = Number(process.env.BENCH_LARGE_STEPS ?? 10_000);
const USER = { email: "large-bench@bench.test", name: "Large bench", role: "researcher", password: "large-bench-password" } as const;

interface Server {
  url: string;
  child: ChildProcess;
  /** The server's event-loop delay since the last call. */
  loopDelay(): Promise<{ maxMs: number; p99Ms: number; meanMs: number }>;
  stop(): Promise<void>;
}

function startServer(dbPath: string, dataDir: string): Promise<Server> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // BENCH_LARGE_SERVER_ARGS: extra Node flags for the server, e.g. "--cpu-prof" to see where its time goes.
  const extra = (process.env.BENCH_LARGE_SERVER_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(
    process.execPath,
    [...extra, "--import", "tsx", "--import", path.join(here, "loop-delay-probe.ts"), path.join(here, "annotation-server.ts"), dbPath, dataDir],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  const waiters: ((line: string) => void)[] = [];
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    let nl: number;
    while ((nl = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      if (line.startsWith("loop-delay ")) waiters.shift()?.(line.slice("loop-delay ".length));
      const m = /^listening (http:\/\/\S+)/.exec(line);
      if (m) ready(m[1]!);
    }
  });
  let ready: (url: string) => void = () => {};
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the bench server exited early (code ${code})`)));
    ready = (url) => {
      child.removeAllListeners("exit");
      resolve({
        url,
        child,
        loopDelay: () =>
          new Promise((r) => {
            waiters.push((json) => r(JSON.parse(json) as { maxMs: number; p99Ms: number; meanMs: number }));
            child.kill("SIGUSR2");
          }),
        stop: () =>
          new Promise<void>((r) => {
            child.once("exit", () => r());
            child.kill("SIGTERM");
          }),
      });
    };
  });
}

export async function benchLargeTrajectory(): Promise<BenchFigure[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-large-"));
  let server: Server | null = null;
  try {
    const dbPath = path.join(work, "verdict.db");
    const app = createAppContext({ ...loadConfig(), dbPath, dataDir: work });
    process.stderr.write(`  writing a ${STEPS.toLocaleString("en-US")}-step trajectory (2 KB thought, 30 marks a step)…\n`);
    const id = await seedLongTrajectory(app.db, { steps: STEPS });
    const shortId = await seedLongTrajectory(app.db, { steps: 60, externalTaskId: "bench-short" });
    await createAccount(app, USER);
    await closeDatabase(app.db);

    server = await startServer(dbPath, work);
    const { url } = server;
    const signIn = await fetch(`${url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: url },
      body: JSON.stringify({ email: USER.email, password: USER.password }),
    });
    if (!signIn.ok) throw new Error(`signing in failed: HTTP ${signIn.status} ${await signIn.text()}`);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const get = async (proc: string, input: unknown) => {
      const t0 = performance.now();
      const res = await fetch(`${url}/api/trpc/${proc}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, { headers: { cookie } });
      const body = await res.text();
      if (!res.ok) throw new Error(`${proc} ${JSON.stringify(input)}: HTTP ${res.status} ${body.slice(0, 300)}`);
      return { ms: performance.now() - t0, bytes: Buffer.byteLength(body) };
    };

    // Another user's cheap request, every 20 ms, for as long as the trajectory is being served.
    const pings: number[] = [];
    let pinging = true;
    const pinger = (async () => {
      while (pinging) {
        pings.push((await get("accounts.session", null)).ms);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    // A short trajectory first, so the server's first-request work (loading and compiling modules) is not counted
    // against the long one.
    await get("accounts.session", null);
    await get("trajectories.byId", { id: shortId });
    await get("trajectories.steps", { id: shortId, from: 50 });
    // The same pings with nothing else to serve, for 5 s: on a shared machine the event loop is delayed by other
    // processes too, and this is that floor.
    await server.loopDelay();
    await new Promise((r) => setTimeout(r, 5_000));
    const idle = await server.loopDelay();
    const cold = await get("trajectories.byId", { id });
    const loopCold = await server.loopDelay();
    const warm = await get("trajectories.byId", { id });
    const loopWarm = await server.loopDelay();
    const windows: { ms: number; bytes: number }[] = [];
    // Stepping from the start to the end: each window once, as the player prefetches them; then End from the start.
    for (let from = STEP_WINDOW; from < STEPS; from += STEP_WINDOW) windows.push(await get("trajectories.steps", { id, from }));
    windows.push(await get("trajectories.steps", { id, from: Math.floor((STEPS - 1) / STEP_WINDOW) * STEP_WINDOW }));
    const loopSteps = await server.loopDelay();
    const loop = { maxMs: Math.max(loopCold.maxMs, loopWarm.maxMs, loopSteps.maxMs), p99Ms: Math.max(loopCold.p99Ms, loopWarm.p99Ms, loopSteps.p99Ms) };
    pinging = false;
    await pinger;

    const windowBytes = median(windows.map((w) => w.bytes));
    const windowP95 = percentile(
      windows.map((w) => w.ms),
      95,
    );
    return [
      {
        name: `first payload (trajectories.byId), ${STEPS.toLocaleString("en-US")} steps`,
        value: cold.bytes / 1024,
        unit: "KB",
        target: "≤ 1024 KB",
        ok: cold.bytes <= 1024 * 1024,
      },
      { name: `window of ${STEP_WINDOW} steps (trajectories.steps), median`, value: windowBytes / 1024, unit: "KB" },
      { name: "open, first time (index built)", value: cold.ms, unit: "ms" },
      { name: "open again (index cached)", value: warm.ms, unit: "ms" },
      { name: `window fetch p95 (${windows.length} windows)`, value: windowP95, unit: "ms" },
      { name: "server event-loop delay, max", value: loop.maxMs, unit: "ms", target: "≤ 100 ms", ok: loop.maxMs <= 100 },
      { name: "server event-loop delay, p99 (worst phase)", value: loop.p99Ms, unit: "ms" },
      { name: "  max while only answering pings (machine's floor)", value: idle.maxMs, unit: "ms" },
      { name: "  max while opening, first time", value: loopCold.maxMs, unit: "ms" },
      { name: "  max while opening again", value: loopWarm.maxMs, unit: "ms" },
      { name: "  max while stepping through all windows", value: loopSteps.maxMs, unit: "ms" },
      { name: `concurrent accounts.session, worst of ${pings.length}`, value: Math.max(...pings), unit: "ms" },
    ];
  } finally {
    await server?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
