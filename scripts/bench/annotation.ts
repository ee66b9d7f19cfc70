/**
 * Labelling under load: 50 annotators sign in through better-auth and label one campaign concurrently through
 * the real tRPC API over HTTP on 127.0.0.1 (the app's router and context behind the same fetch handlers as the
 * Next routes, in a server process of its own), until 5,000 labels are stored. One submit in 50 is sent twice at
 * once with the same idempotency key (a double click). Afterwards the database is checked: every label stored
 * exactly once, no trajectory over its k.
 *
 * Two phases:
 * - paced: each annotator looks at a trajectory for 0.5–1.5 s (uniform) between "next" and "submit". People take
 *   minutes (WebVoyager's evaluators judged whole trajectories), so this is still ~100× their pace; the submit
 *   latency target applies here;
 * - saturation: a further batch with no pause at all, which measures how many labels per second the server can
 *   take and how latency degrades when it is overloaded (no target).
 *
 * Scale with BENCH_ANNOTATION_LABELS, BENCH_ANNOTATION_ANNOTATORS, BENCH_ANNOTATION_THINK_MS (mean pause) and
 * BENCH_ANNOTATION_BURST (labels in the saturation phase). The campaign mixes gold items into every queue
 * (BENCH_ANNOTATION_GOLD_ITEMS trajectories marked gold, default 20, at BENCH_ANNOTATION_GOLD_RATE, default 0.1)
 * and hands items out by BENCH_ANNOTATION_STRATEGY (default least_covered; random, by_site, by_run,
 * disputed_first); "next" has its own target, p95 ≤ 30 ms.
 *
 * Runs on the engine it is given (scripts/bench/engines.ts): the SQLite file, or a PostgreSQL database that the
 * server process reaches over its pool, as a team deployment's web server does.
 */
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import { fileURLToPath } from "node:url";
import { createTRPCClient, httpLink } from "@trpc/client";
import { sql } from "drizzle-orm";
import superjson from "superjson";
import { closeDatabase, rawGet, withTransaction } from "../../db/database";
import type { VerdictConfig } from "../../server/config";
import { ensureTask, ensureTaskSet, upsertRun } from "../../db/repositories/catalog";
import { saveTrajectory } from "../../db/repositories/trajectories";
import type { AppRouter } from "../../server/api/root";
import { createAppContext, type AppContext } from "../../server/context";
import { createAccount } from "../../server/services/accounts";
import { createCampaign, markGold, updateQualitySettings } from "../../server/services/annotation";
import { ASSIGNMENT_STRATEGIES, type AssignmentStrategy } from "../../server/domain/annotation/assignment";
import { sqliteEngine, type BenchEngine } from "./engines";
import { percentile, type BenchFigure } from "./types";

const K = 3;
const PASSWORD = "bench-password";

async function seedTrajectories(app: AppContext, n: number): Promise<number[]> {
  const setId = await ensureTaskSet(app.db, { name: "Bench set", benchmark: "webvoyager" });
  const runId = await upsertRun(app.db, {
    runKey: "bench:annotation",
    name: "bench run",
    agentName: "bench-agent",
    model: "bench-model",
    sourceSystem: "bench",
    config: null,
  });
  const ids: number[] = [];
  await withTransaction(app.db, async () => {
    for (let i = 0; i < n; i++) {
      const taskId = await ensureTask(app.db, setId, {
        externalId: `bench-${i}`,
        site: "Bench",
        intent: `Task ${i}`,
        startUrl: null,
        contentHash: `bench-task-${i}`,
      });
      const steps = [0, 1, 2, 3].map((s) => ({
        index: s,
        url: null,
        thought: null,
        actionRaw: null,
        action: { type: s === 3 ? ("answer" as const) : ("click" as const), target: String(s) },
      }));
      ids.push(
        (
          await saveTrajectory(app.db, {
            runId,
            taskId,
            attempt: 0,
            finalAnswer: "ok",
            outcome: "answered",
            outcomeDetail: null,
            stepCount: 4,
            sourceFormat: "bench",
            sourcePath: null,
            contentHash: `bench-${i}`,
            steps,
          })
        ).id,
      );
    }
  });
  return ids;
}

/** Starts the HTTP server (scripts/bench/annotation-server.ts) in its own process, so the 50 clients here do not
 * share its event loop; resolves with its base URL once it listens. */
function startServerProcess(config: VerdictConfig): Promise<{ url: string; stop(): Promise<void> }> {
  // BENCH_ANNOTATION_SERVER_ARGS: extra Node flags for the server, e.g. "--cpu-prof" to see where its time goes.
  const extra = (process.env.BENCH_ANNOTATION_SERVER_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(
    process.execPath,
    [...extra, "--import", "tsx", fileURLToPath(new URL("./annotation-server.ts", import.meta.url)), config.dbPath, config.dataDir, config.postgresUrl ?? "-"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.once("exit", (code) => reject(new Error(`the bench server exited early (code ${code})`)));
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (http:\/\/\S+)/.exec(out);
      if (m) {
        child.removeAllListeners("exit");
        resolve({
          url: m[1]!,
          stop: () =>
            new Promise<void>((r) => {
              child.once("exit", () => r());
              child.kill("SIGTERM");
            }),
        });
      }
    });
  });
}

async function signIn(base: string, email: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (!res.ok) throw new Error(`sign-in of ${email} failed: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

export async function benchAnnotation(engine: BenchEngine = sqliteEngine()): Promise<BenchFigure[]> {
  const totalLabels = Number(process.env.BENCH_ANNOTATION_LABELS ?? 5000);
  const annotatorCount = Number(process.env.BENCH_ANNOTATION_ANNOTATORS ?? 50);
  const thinkMs = Number(process.env.BENCH_ANNOTATION_THINK_MS ?? 1000);
  const burstLabels = Number(process.env.BENCH_ANNOTATION_BURST ?? 1000);
  const goldItems = Number(process.env.BENCH_ANNOTATION_GOLD_ITEMS ?? 20);
  const goldRate = Number(process.env.BENCH_ANNOTATION_GOLD_RATE ?? 0.1);
  const strategy = (process.env.BENCH_ANNOTATION_STRATEGY ?? "least_covered") as AssignmentStrategy;
  if (!ASSIGNMENT_STRATEGIES.includes(strategy)) throw new Error(`BENCH_ANNOTATION_STRATEGY: one of ${ASSIGNMENT_STRATEGIES.join(", ")}, got ${strategy}`);
  const installation = await engine.install("verdict-bench-annotation-");
  const app = createAppContext(installation.config);
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    const ids = await seedTrajectories(app, Math.ceil((totalLabels + burstLabels) / K));
    const admin = await createAccount(app, { email: "admin@bench.test", name: "Admin", role: "admin", password: PASSWORD });
    const people: { id: string; email: string }[] = [];
    for (let i = 0; i < annotatorCount; i++) {
      const { user } = await createAccount(app, { email: `a${i}@bench.test`, name: `Annotator ${i}`, role: "annotator", password: PASSWORD });
      people.push({ id: user.id, email: user.email });
    }
    const campaign = await createCampaign(
      app.db,
      { userId: admin.user.id, name: admin.user.name, role: "admin" },
      { name: "Bench", trajectoryIds: ids, annotatorsPerItem: K, annotatorIds: people.map((p) => p.id) },
    );
    const researcher = { userId: admin.user.id, name: admin.user.name, role: "admin" as const };
    for (const t of ids.slice(0, goldItems)) await markGold(app.db, researcher, { campaignId: campaign.id, trajectoryId: t, verdict: "success" });
    await updateQualitySettings(app.db, researcher, campaign.id, { goldRate, assignmentStrategy: strategy });

    server = await startServerProcess(app.config);
    const base = server.url;
    const clients = await Promise.all(
      people.map(async (p) => {
        const cookie = await signIn(base, p.email);
        return createTRPCClient<AppRouter>({
          links: [httpLink({ url: `${base}/api/trpc`, transformer: superjson, headers: () => ({ cookie, origin: base }) })],
        });
      }),
    );

    const run = async (labels: number, thinkMs: number) => {
      let issued = 0;
      let doubled = 0;
      const submitMs: number[] = [];
      const nextMs: number[] = [];
      const started = performance.now();
      await Promise.all(
        clients.map(async (client, i) => {
          for (;;) {
            if (issued >= labels) return;
            let t = performance.now();
            const a = await client.labelling.next.mutate({ campaignId: campaign.id });
            nextMs.push(performance.now() - t);
            if (!a) return;
            if (thinkMs > 0) await new Promise((r) => setTimeout(r, thinkMs * (0.5 + Math.random())));
            if (issued >= labels) {
              await client.labelling.release.mutate({ campaignId: campaign.id });
              return;
            }
            issued++;
            const failure = (i + issued) % 3 === 0;
            const input = {
              campaignId: campaign.id,
              itemNo: a.itemNo,
              verdict: failure ? ("failure" as const) : ("success" as const),
              category: failure ? "navigation stuck" : null,
              timeSpentMs: 30_000,
              stepsViewed: [0, 1, 2, 3],
              idempotencyKey: crypto.randomUUID(),
            };
            const twice = issued % 50 === 0;
            t = performance.now();
            const results = await Promise.all(
              twice ? [client.labelling.submit.mutate(input), client.labelling.submit.mutate(input)] : [client.labelling.submit.mutate(input)],
            );
            submitMs.push(performance.now() - t);
            if (twice) {
              doubled++;
              if (results[0]!.revisionId !== results[1]!.revisionId || results.filter((r) => r.replayed).length !== 1)
                throw new Error("a double submit was not deduplicated");
            }
            if (stored.has(results[0]!.revisionId)) throw new Error(`revision ${results[0]!.revisionId} was returned for two different submits`);
            stored.add(results[0]!.revisionId);
          }
        }),
      );
      return { submitMs, nextMs, doubled, seconds: (performance.now() - started) / 1000 };
    };
    const stored = new Set<number>();
    const paced = await run(totalLabels, thinkMs);
    const burst = await run(burstLabels, 0);
    const expected = totalLabels + burstLabels;

    const count = async (q: ReturnType<typeof sql>) => Number((await rawGet<{ n: number | string }>(app.db, q))!.n);
    const labelRows = await count(sql`select count(*) as n from labels where status = 'active'`);
    const revisionRows = await count(sql`select count(*) as n from label_revisions`);
    // Gold items are labelled by every annotator; the k limit holds for the others.
    const overfull = await count(
      sql`select count(*) as n from (select item_id from labels where item_id not in (select item_id from gold_items) group by item_id having count(*) > ${K}) as overfull_items`,
    );
    const exactlyOnce = labelRows === expected && revisionRows === expected && stored.size === expected && overfull === 0;
    const p95 = percentile(paced.submitMs, 95);
    return [
      { name: `labels stored (${annotatorCount} annotators over HTTP)`, value: labelRows, unit: "labels", target: `= ${expected}, each once`, ok: exactlyOnce },
      { name: "double submits stored once", value: paced.doubled + burst.doubled, unit: "pairs", ok: exactlyOnce },
      { name: `submit latency p50 (${thinkMs / 1000} s per label)`, value: percentile(paced.submitMs, 50), unit: "ms" },
      { name: `submit latency p95 (${thinkMs / 1000} s per label)`, value: p95, unit: "ms", target: "≤ 100 ms", ok: p95 <= 100 },
      { name: `submit latency p99 (${thinkMs / 1000} s per label)`, value: percentile(paced.submitMs, 99), unit: "ms" },
      {
        name: `next latency p95 (${thinkMs / 1000} s per label; ${strategy}, gold ${goldItems} items at ${goldRate})`,
        value: percentile(paced.nextMs, 95),
        unit: "ms",
        target: "≤ 30 ms",
        ok: percentile(paced.nextMs, 95) <= 30,
      },
      { name: "saturation throughput (no pause)", value: burstLabels / burst.seconds, unit: "labels/s" },
      { name: "submit latency p95 at saturation", value: percentile(burst.submitMs, 95), unit: "ms" },
    ];
  } finally {
    await server?.stop();
    await closeDatabase(app.db);
    installation.remove();
  }
}
