/**
 * Step-budget curves from the analytics fixture's consolidated human labels (tests/helpers/analytics-fixture.ts),
 * through the service and `npm run cli -- step-budget`, on each engine. Worked by hand:
 *   alpha: T1 S 3, T2 F 5, T3 F 8, T4 S 12, T5 S 15, T6 F 22 → n 6; at k=5 1/6, k=12 2/6, k=15 3/6;
 *          steps per success (3+5+8+12+15+22)/3 = 65/3
 *   beta:  T7 S 4, T8 F 6, T10 F 11, T12 F 25 (T9 unsure and T11 unlabelled left out) → n 4; 1/4 from k=4; 46 steps per success
 *   by site: Shop T1 S 3, T2 F 5, T3 F 8, T7 S 4, T8 F 6 → n 5, 2/5 from k=4; Wiki T4 S 12, T5 S 15, T6 F 22, T10 F 11, T12 F 25 → n 5
 * Time and a person's steps (set up in beforeAll): every step of alpha takes 2 s except one of T6's 22, which is
 * untimed, so alpha has 5 of 6 counted trajectories timed and no seconds per success; every step of beta takes 1 s
 * (T7 1.5 s): T7 6 s + T8 6 s + T10 11 s + T12 25 s = 48 s for its one success. A person took 2 steps on Shop--easy
 * (T1, T7) and 6 on Wiki--easy (T4): alpha's successes T1 3 and T4 12 against 2 and 6 → ratio 15/8, means 7.5 and 4;
 * beta's T7 4 against 2 → ratio 2. T5 (Wiki--medium) has no person's count and is not compared.
 */
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { stepBudgets } from "../../server/services/analytics";
import { and, eq, inArray } from "drizzle-orm";
import { tablesOf } from "../../db/database";
import { seedAnalyticsFixture } from "../helpers/analytics-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { runCliInProcess } from "../helpers/cli";
import type { TestContext } from "../helpers/context";

const environment = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "VERDICT_DATABASE_URL" && k !== "VERDICT_DB")) as NodeJS.ProcessEnv;
const root = path.resolve(__dirname, "..", "..");

describeEachBackend("step-budget curves", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-step-budget-");
    const fx = await seedAnalyticsFixture(ctx.db);
    const { steps, tasks, trajectories } = tablesOf(ctx.db);
    const ids = (names: string[]) => names.map((n) => fx.ids[n]!);
    await ctx.db
      .update(steps)
      .set({ durationMs: 2000 })
      .where(inArray(steps.trajectoryId, ids(["T1", "T2", "T3", "T4", "T5", "T6"])));
    await ctx.db
      .update(steps)
      .set({ durationMs: null })
      .where(and(eq(steps.trajectoryId, fx.ids.T6!), eq(steps.index, 7)));
    await ctx.db
      .update(steps)
      .set({ durationMs: 1000 })
      .where(inArray(steps.trajectoryId, ids(["T8", "T9", "T10", "T11", "T12"])));
    await ctx.db.update(steps).set({ durationMs: 1500 }).where(eq(steps.trajectoryId, fx.ids.T7!));
    const taskOf = async (name: string) =>
      (await ctx.db.select({ taskId: trajectories.taskId }).from(trajectories).where(eq(trajectories.id, fx.ids[name]!)))[0]!.taskId;
    await ctx.db
      .update(tasks)
      .set({ extra: { reference_length: 2 } })
      .where(eq(tasks.id, await taskOf("T1")));
    await ctx.db
      .update(tasks)
      .set({ extra: { reference_length: 6 } })
      .where(eq(tasks.id, await taskOf("T4")));
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  it("scores each run as if stopped at k, from the human labels", async () => {
    const { curves } = await stepBudgets(ctx.db, { scope: {}, by: "run", ks: [4, 5, 12, 15, 25] });
    expect(curves.map((c) => [c.group, c.n, c.points.map((p) => `${p.successes}/${p.n}`)])).toEqual([
      ["alpha", 6, ["1/6", "1/6", "2/6", "3/6", "3/6"]],
      ["beta", 4, ["1/4", "1/4", "1/4", "1/4", "1/4"]],
    ]);
    expect(curves[0]!.stepsPerSuccess).toBeCloseTo(65 / 3, 10);
    expect(curves[1]!.stepsPerSuccess).toBe(46);
    const bySite = await stepBudgets(ctx.db, { scope: {}, by: "site", ks: [3, 4] });
    expect(bySite.curves.map((c) => [c.group, c.points.map((p) => `${p.successes}/${p.n}`)])).toEqual([
      ["Shop", ["1/5", "2/5"]],
      ["Wiki", ["0/5", "0/5"]],
    ]);
    // Every k from 1 to the longest labelled trajectory when none are asked for.
    expect((await stepBudgets(ctx.db, { scope: {}, by: "run" })).curves[0]!.points.map((p) => p.k)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    await expect(stepBudgets(ctx.db, { scope: {}, by: "run", ks: [0] })).rejects.toThrow("a step budget is a positive whole number of steps, got 0");
  });

  it("prices a success in recorded seconds when every step was timed, and sets its steps beside a person's", async () => {
    const { curves } = await stepBudgets(ctx.db, { scope: {}, by: "run", ks: [25] });
    expect(curves.map((c) => [c.group, c.timed, c.n, c.secondsPerSuccess])).toEqual([
      ["alpha", 5, 6, null],
      ["beta", 4, 4, 48],
    ]);
    expect(curves[0]!.versusHuman).toEqual({ n: 2, meanAgentSteps: 7.5, meanHumanSteps: 4, ratio: 15 / 8 });
    expect(curves[1]!.versusHuman).toEqual({ n: 1, meanAgentSteps: 4, meanHumanSteps: 2, ratio: 2 });
  });

  it("prints the curves from the command line, as a table and as JSON", async () => {
    const env = {
      ...environment,
      VERDICT_DATA_DIR: ctx.dir,
      VERDICT_DB: ctx.config.dbPath,
      ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : {}),
      VERDICT_AUTH_SECRET: "",
    };
    const table = await runCliInProcess(["step-budget", "--k", "5,15"], env, root);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/alpha\s+6\s+16\.7% \[3\.0%, 56\.4%\]\s+50\.0% \[18\.8%, 81\.2%\]\s+21\.7\s+5\/6 timed\s+×1\.88 \(2\)/);
    expect(table.stdout).toMatch(/beta\s+4\s+25\.0% \[4\.6%, 69\.9%\]\s+25\.0% \[4\.6%, 69\.9%\]\s+46\.0\s+48\.0\s+×2\.00 \(1\)/);
    const json = await runCliInProcess(["step-budget", "--by", "site", "--json"], env, root);
    expect(JSON.parse(json.stdout).curves.map((c: { group: string; successes: number }) => [c.group, c.successes])).toEqual([
      ["Shop", 2],
      ["Wiki", 2],
    ]);
    const bad = await runCliInProcess(["step-budget", "--by", "agent"], env, root);
    expect(bad).toMatchObject({ code: 2, stderr: `--by: expected run or site, got "agent"\n` });
  });
});
