/**
 * The live runner's worker: takes `runner.task` jobs from the queue and runs them with bounded concurrency, in its
 * own process (`npm run worker`) or inside the CLI's `run` command; Playwright never runs in a web request.
 *
 * - One Chromium per worker, launched on the first job and launched again if it dies; one context per run.
 * - It serves the bundled demo sites on VERDICT_DEMO_PORT (4517) so the demo tasks' start URLs work. When the port is
 *   taken by another worker's demo server, that one is used. The demo origin and the destinations an admin listed in
 *   VERDICT_RUNNER_ALLOWED_DESTINATIONS (host:port, comma-separated) are the private addresses runs may reach (a
 *   deployment profile's sites instead, on a profile run); no run setting adds to them.
 * - The browser is launched with this worker's egress proxy (refusing private addresses except those) and each run's
 *   context gets its own proxy with the run's rules (run-task.ts); see egress-proxy.ts.
 * - Leases are short and renewed four times a second, so a cancel reaches a run within a second and the jobs of a
 *   worker that died are taken back (requeued, or failed with the reason once their attempts are used up) soon after.
 *   Trajectories such a worker left "running" are closed with the job's reason.
 * - With a bucket configured (VERDICT_S3_BUCKET), each finished bundle is moved from this worker's data folder into
 *   the bucket, so workers on several hosts need no shared folder (run-task.ts, storage/live-bundles.ts).
 */
import http from "node:http";
import type { Browser } from "playwright";
import { reconcileLiveTrajectories } from "../../../db/repositories/live/runs";
import { hasPendingJobs } from "../../../db/repositories/jobs";
import { LIVE_JOB_TYPE } from "../../domain/live/live-jobs";
import type { LiveTaskPayload } from "../../domain/live/settings";
import { demoSitesPort, runnerAllowedDestinations, runtimeEnvironment } from "../../config";
import type { AppContext } from "../../context";
import { browserIsolation, connectRemoteBrowser, launchChromium } from "../../browser/launch";
import type { VerdictConfig } from "../../config";
import { browserNetworkWarning, ensureBrowserNetworkRules } from "./browser-network";
import { startDemoSites, type DemoSitesServer } from "../../demo-sites/server";
import { runWorker, type JobOutcome, type WorkerSummary } from "../jobs";
import { liveBundleBucketFor } from "../../storage/live-bundles";
import type { JudgeClient, JudgeEndpoint, RetryPolicy } from "../evaluation/judge-client";
import type { Env } from "../evaluation/judge-configs";
import type { JobRow } from "../../../db/schema/index";
import { ensureDemoTaskSet } from "./demo-tasks";
import { runLiveTask, type RunnerDeps } from "./run-task";
import { EgressProxy, type HostResolver } from "./egress-proxy";
import { LoginCache } from "./deployment-runtime";
import { HostSlots } from "./host-slots";
import { enqueueRulesApply } from "../automation";

export const DEFAULT_RUNNER_LEASE_MS = 15_000;
export const RUNNER_HEARTBEAT_MS = 250;

export interface RunnerWorkerOptions {
  ctx: AppContext;
  env: Env;
  /** Runs this worker carries at once. */
  concurrency: number;
  /** Only this group (the CLI runs one live run). */
  groupKey?: string;
  /** Return when no job of the filter is left (CLI); otherwise run until `signal`. */
  untilIdle?: boolean;
  signal?: AbortSignal;
  owner?: string;
  leaseMs?: number;
  heartbeatMs?: number;
  /** Port for the demo sites; null serves none. Defaults to VERDICT_DEMO_PORT or 4517. */
  demoPort?: number | null;
  /** Demo sites served elsewhere (tests): used instead of serving them. */
  demo?: { baseUrl: string; origins: string[] };
  /**
   * Launches the worker's browser (tests keep a handle on it); Chromium from the config by default. `egressProxy` is
   * the worker's proxy, for --proxy-server.
   */
  launch?: (options: { egressProxy: string }) => Promise<Browser>;
  headless?: boolean;
  retryPolicy?: RetryPolicy;
  clientFactory?: (e: JudgeEndpoint, p?: RetryPolicy) => JudgeClient;
  resolveHost?: HostResolver;
  onJobEnd?: (job: JobRow, outcome: JobOutcome, error?: string) => void;
  /** Told when the queue cannot be read for a while (database busy or unreachable) and when it answers again. */
  onQueueTrouble?: (event: { recovered: boolean; error?: string }) => void;
  log?: (line: string) => void;
  /** Deployment logins this worker made (once per run and site); tests pass one to look at it. */
  logins?: LoginCache;
}

function probe(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2_000 }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 400);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => {
      req.destroy();
      resolve(false);
    });
  });
}

export interface DemoSitesHandle {
  baseUrl: string;
  /** Origins (host:port) the runs may reach although they are loopback addresses. */
  origins: string[];
  /** True when this process serves them (and closes them on exit). */
  owned: boolean;
  close(): Promise<void>;
}

/** Serves the demo sites on `port`, or adopts the demo server another process already runs there. */
export async function serveDemoSites(port: number): Promise<DemoSitesHandle> {
  let server: DemoSitesServer | null = null;
  let baseUrl = `http://127.0.0.1:${port}`;
  try {
    server = await startDemoSites({ port });
    baseUrl = server.baseUrl;
  } catch (e) {
    if (port === 0 || !(await probe(`${baseUrl}/recipes/`))) throw e;
  }
  const actual = server?.port ?? port;
  return {
    baseUrl,
    origins: [`127.0.0.1:${actual}`, `localhost:${actual}`],
    owned: !!server,
    close: async () => {
      await server?.close();
    },
  };
}

/** A browser launched on first use and again after it disconnected. */
export function browserPool(launch: () => Promise<Browser>) {
  let current: Promise<Browser> | null = null;
  return {
    /** The running browser, launching it when there is none. */
    browser(): Promise<Browser> {
      if (!current) {
        const launching = launch();
        current = launching;
        launching.then(
          (b) =>
            b.on("disconnected", () => {
              if (current === launching) current = null;
            }),
          () => {
            if (current === launching) current = null;
          },
        );
      }
      return current;
    },
    async close(): Promise<void> {
      const c = current;
      current = null;
      if (c) await c.then((b) => b.close()).catch(() => {});
    },
  };
}

/**
 * At start: when Chromium will run as the browser user, its network rules are checked (and installed, as root); a
 * worker that cannot have them warns once with the operator's step, and runs on.
 */
function checkBrowserNetwork(config: VerdictConfig, env: NodeJS.ProcessEnv, log?: (line: string) => void): void {
  let isolation;
  try {
    isolation = browserIsolation(config);
  } catch {
    return; // no browser user: launching says what to do
  }
  if (isolation.kind !== "sandbox-as-user") return;
  const state = ensureBrowserNetworkRules({ user: isolation.user, uid: isolation.uid, ports: config.runnerProxyPorts, env });
  if (state.kind === "in-place") log?.(`browser network: ${state.detail}`);
  else (log ?? ((line: string) => console.warn(line)))(`warning: ${browserNetworkWarning(isolation.user, state)}`);
}

export async function runRunnerWorker(opts: RunnerWorkerOptions): Promise<WorkerSummary & { demoBaseUrl: string | null }> {
  const { ctx } = opts;
  const adminAllowed = runnerAllowedDestinations(opts.env);
  const demoPort = opts.demoPort === undefined ? demoSitesPort(opts.env) : opts.demoPort;
  let demo: { baseUrl: string; origins: string[] } | null = opts.demo ?? null;
  let served: DemoSitesHandle | null = null;
  if (!demo && demoPort !== null) {
    served = await serveDemoSites(demoPort);
    demo = served;
  }
  if (demo) {
    // The demo tasks' start URLs must point where this worker serves the sites.
    await ensureDemoTaskSet(ctx.db, demo.baseUrl);
    if (served) opts.log?.(`demo sites ${served.owned ? "served" : "already served by another process"} at ${served.baseUrl}/; demo task set ready`);
  }
  const exceptions = [...(demo?.origins ?? []), ...adminAllowed];
  // The browser's own proxy: each run's context has a proxy of its own, this one covers whatever is not in one.
  const egress = await EgressProxy.start({
    rules: { allowedDestinations: exceptions },
    ports: ctx.config.runnerProxyPorts,
    resolveHost: opts.resolveHost,
    onRefusal: (r) => opts.log?.(`browser: ${r.message}`),
  });
  const remote = ctx.config.remoteBrowser;
  if (remote && !ctx.config.runnerProxyHost) {
    // Without a proxy it can reach, a remote browser's pages would go wherever they like: no run starts.
    await egress.close();
    await served?.close();
    throw new Error(
      "A remote browser (VERDICT_BROWSER_WS) needs VERDICT_RUNNER_PROXY_HOST: the address of this worker the browser reaches its egress proxy on, which enforces the runs' address policy",
    );
  }
  // A browser started here as the unprivileged browser user can be held to the egress proxies by the kernel too.
  if (!remote) checkBrowserNetwork(ctx.config, { ...runtimeEnvironment(), ...opts.env }, opts.log);
  const launch =
    opts.launch ??
    (remote
      ? () => connectRemoteBrowser(remote)
      : (o: { egressProxy: string }) =>
          launchChromium({
            config: ctx.config,
            headless: opts.headless ?? true,
            egressProxy: o.egressProxy,
            env: { ...runtimeEnvironment(), ...opts.env },
            warn: opts.log,
          }));
  const browsers = browserPool(() => launch({ egressProxy: egress.url }));
  const deps: RunnerDeps = {
    db: ctx.db,
    store: ctx.store,
    env: opts.env,
    dataDir: ctx.config.dataDir,
    browser: () => browsers.browser(),
    privateOriginExceptions: exceptions,
    retryPolicy: opts.retryPolicy,
    clientFactory: opts.clientFactory,
    resolveHost: opts.resolveHost,
    remoteProxyHost: remote ? ctx.config.runnerProxyHost : undefined,
    proxyPorts: ctx.config.runnerProxyPorts,
    log: opts.log,
    logins: opts.logins ?? new LoginCache(),
    hostSlots: new HostSlots(),
    bundles: liveBundleBucketFor(ctx.config.objectStorage),
  };
  // One sweep at a time: a slow database must not stack sweeps on top of each other.
  let sweeping: Promise<void> | null = null;
  const reconcile = (): Promise<void> => {
    sweeping ??= reconcileLiveTrajectories(ctx.db)
      .then(
        () => {},
        () => {
          // A busy database delays the sweep to the next tick.
        },
      )
      .finally(() => {
        sweeping = null;
      });
    return sweeping;
  };
  // A run's signed-in sessions live as long as the run: once none of its tasks is queued or running (here or in
  // another worker), they are dropped, so no later run (or a run after the profile was edited) reuses them.
  const logins = deps.logins!;
  const forgetLoginsOfEndedRun = async (job: JobRow): Promise<void> => {
    const runId = (job.payload as Partial<LiveTaskPayload> | null)?.runId;
    if (typeof runId !== "number" || !job.groupKey) return;
    if (await hasPendingJobs(ctx.db, { groupKey: job.groupKey })) return;
    logins.forgetRun(runId);
    // The run has ended: automation rules look at its trajectories (a rule acts on each at most once).
    await enqueueRulesApply(ctx.db, { trigger: "live", arrival: `live run ${runId}`, key: `live:${runId}:${job.id}`, liveRunId: runId });
  };
  /** A sweep that starts after the one in flight (which may have read the database before a job ended). */
  const reconcileAfterNow = (): Promise<void> => (sweeping ?? Promise.resolve()).then(reconcile);
  const endNotices = new Set<Promise<void>>();
  await reconcile();
  const sweep = setInterval(() => void reconcile(), 2_000);
  sweep.unref?.();
  try {
    const summary = await runWorker({
      db: ctx.db,
      handlers: { [LIVE_JOB_TYPE]: (job) => runLiveTask(deps, job) },
      concurrency: opts.concurrency,
      owner: opts.owner,
      groupKey: opts.groupKey,
      untilIdle: opts.untilIdle,
      signal: opts.signal,
      leaseMs: opts.leaseMs ?? DEFAULT_RUNNER_LEASE_MS,
      heartbeatMs: opts.heartbeatMs ?? RUNNER_HEARTBEAT_MS,
      pollMs: 250,
      // A task that was interrupted starts over from its start URL: a short pause is enough.
      retryDelayMs: () => 500,
      onQueueTrouble: opts.onQueueTrouble,
      // The job's end is passed on once the sweep has closed what the job left running, so whoever watches it
      // sees the trajectory's final state.
      onJobEnd: (job, outcome, error) => {
        const notice = reconcileAfterNow()
          .then(() => forgetLoginsOfEndedRun(job))
          .then(() => opts.onJobEnd?.(job, outcome, error))
          .catch((e: unknown) => opts.log?.(`after job ${job.id}: ${String(e)}`))
          .finally(() => endNotices.delete(notice));
        endNotices.add(notice);
      },
    });
    return { ...summary, demoBaseUrl: demo?.baseUrl ?? null };
  } finally {
    clearInterval(sweep);
    await Promise.allSettled([...endNotices]);
    await reconcileAfterNow();
    logins.clear();
    await browsers.close();
    await egress.close();
    await served?.close();
  }
}
