/**
 * The task validity ledger (issue 29, item 4) on both engines: flags are revisions kept in order, only researchers
 * and admins write or read them, and every figure of the analytics overview, judge agreement, human agreement and
 * the trajectory list (and the error analysis) leaves out the flagged task's trajectories (figures worked out by hand on the analytics
 * fixture, tests/helpers/analytics-fixture.ts), says how many it left out, and comes back when the toggle includes
 * them or the flag is cleared. Nothing clears the analytics cache in between: the ledger's change counter must.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBackendContext, describeEachBackend, type TestBackend } from "../helpers/backends";
import type { createCaller } from "../../server/api/root";
import { callerWithRole } from "../helpers/trpc";
import { selectionRows } from "../../server/services/analytics";
import { taskValidityLedger } from "../../server/services/catalog";
import { ledgerCsv } from "../../server/domain/catalog/task-validity";
import { parseCsv } from "../../server/domain/csv";
import type { Selection } from "../../server/domain/analytics/selection";
import type { TestContext } from "../helpers/context";
import { seedAnalyticsFixture, type AnalyticsFixture } from "../helpers/analytics-fixture";
import { getTrajectoryForPlayer } from "../../server/services/trajectory-views";
import { runCliInProcess } from "../helpers/cli";

describeEachBackend("task validity ledger", (backend: TestBackend) => {
  let ctx: TestContext;
  let fx: AnalyticsFixture;
  let api: ReturnType<typeof createCaller>;
  let annotator: ReturnType<typeof createCaller>;
  /** The task both T2 (run alpha) and T8 (run beta) attempt: "Shop--medium". */
  let taskId: number;

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-task-validity-");
    fx = await seedAnalyticsFixture(ctx.db);
    api = await callerWithRole(ctx, "researcher");
    annotator = await callerWithRole(ctx, "annotator");
    taskId = (await getTrajectoryForPlayer(ctx.db, fx.ids.T2!)).task.id;
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  const close = (actual: number | null | undefined, expected: number) => {
    expect(actual).not.toBeNull();
    expect(actual).toBeCloseTo(expected, 10);
  };

  /** The figures each view shows, read fresh through the API (and its per-connection cache). */
  async function figures(includeFlagged?: boolean) {
    const scope = includeFlagged === undefined ? {} : { includeFlagged };
    const o = await api.analytics.overview({ scope });
    const human = o.columns[0]!.total;
    const judges = await api.analytics.judges({ scope });
    const k1 = judges.judges.find((j) => j.info.label === "Fixture judge · k = 1")!.stats;
    const h = await api.analytics.humans({ campaignId: fx.campaignId, ...(includeFlagged === undefined ? {} : { includeFlagged }) });
    const e = await api.analytics.errors({ scope });
    return {
      errors: { trajectories: e.trajectories, labelled: e.labelled, failures: e.failures, flagged: e.flagged },
      overview: { trajectories: o.trajectories, successes: human.successes, n: human.n, rate: human.rate, flagged: o.flagged },
      judge: { n: k1.n, agreement: k1.agreement, kappa: k1.kappa.kappa, flagged: judges.flagged },
      humans: {
        labels: h.labels,
        items: h.labelledItems,
        pairable: h.pairableItems,
        alpha: h.verdict.alpha.alpha,
        percent: h.verdict.percent.value,
        flagged: h.flagged,
      },
      raw: { o, judges, h },
    };
  }

  async function expectDrillsMatch(sel: Selection, n: number) {
    expect((await selectionRows(ctx.db, sel)).length).toBe(n);
  }

  it("before any flag: the fixture's figures, nothing left out", async () => {
    const f = await figures();
    expect(f.overview).toMatchObject({ trajectories: 12, successes: 4, n: 10, flagged: { tasks: 0, trajectories: 0, included: false } });
    close(f.overview.rate, 0.4);
    expect(f.judge.n).toBe(9);
    close(f.judge.kappa, 4 / 7);
    expect([f.humans.labels, f.humans.items, f.humans.pairable]).toEqual([34, 12, 11]);
    close(f.humans.alpha, 256 / 504);
    // The error analysis counts the 6 human failures among the 11 labelled trajectories (10 decided, 1 unsure).
    expect(f.errors).toEqual({ trajectories: 12, labelled: 11, failures: 6, flagged: { tasks: 0, trajectories: 0, included: false } });
    const list = await api.trajectories.list({});
    expect([list.total, list.flaggedHidden]).toEqual([12, 0]);
  });

  it("a flag leaves the task's trajectories out of every view and says how many", async () => {
    const history = await api.tasks.flag({ taskId, status: "broken", reason: "The product page is gone", evidenceUrl: "https://example.org/issues/246" });
    expect(history.map((r) => [r.status, r.reason, r.evidenceUrl])).toEqual([["broken", "The product page is gone", "https://example.org/issues/246"]]);
    const f = await figures();
    const left = { tasks: 1, trajectories: 2, included: false };
    // T2 and T8, both human failures, leave: 4 successes of 8.
    expect(f.overview).toMatchObject({ trajectories: 10, successes: 4, n: 8, flagged: left });
    close(f.overview.rate, 0.5);
    // Without T2 (human failure, judge success) and T8 (both failure): [[3, 0], [1, 3]], p_o = 6/7, p_e = 24/49, κ = 18/25.
    expect(f.judge.n).toBe(7);
    close(f.judge.agreement, 6 / 7);
    close(f.judge.kappa, 18 / 25);
    expect(f.judge.flagged).toEqual(left);
    // T2's and T8's items leave: 28 labels on 10 items, 9 pairable; coincidences o_SS = o_FF = 10, o_SF = o_FS = 3
    // over n = 26 values (13 each), α = 1 − 25·6 / (2·13·13) = 94/169; P̄ = (8 − 1/3 − 1) / 9 = 20/27.
    expect([f.humans.labels, f.humans.items, f.humans.pairable]).toEqual([28, 10, 9]);
    close(f.humans.alpha, 94 / 169);
    close(f.humans.percent, 20 / 27);
    expect(f.humans.flagged).toEqual(left);
    // The error analysis loses the two failures and says why.
    expect(f.errors).toEqual({ trajectories: 10, labelled: 9, failures: 4, flagged: left });
    // The drill-downs behind the figures list the same trajectories.
    await expectDrillsMatch(f.raw.o.columns[0]!.total.sel, 8);
    await expectDrillsMatch(f.raw.h.sel, 10);
    // The list leaves them out too, and says so; flagged=only lists just them, with their flag.
    const list = await api.trajectories.list({});
    expect([list.total, list.flaggedHidden]).toEqual([10, 2]);
    expect(list.rows.map((r) => r.id)).not.toContain(fx.ids.T2);
    const only = await api.trajectories.list({ flagged: "only" });
    expect(only.rows.map((r) => r.id).sort((a, b) => a - b)).toEqual([fx.ids.T2!, fx.ids.T8!].sort((a, b) => a - b));
    expect(only.rows.map((r) => r.taskFlag)).toEqual([
      { status: "broken", reason: "The product page is gone" },
      { status: "broken", reason: "The product page is gone" },
    ]);
  });

  it("the toggle counts them again, everywhere", async () => {
    const f = await figures(true);
    expect(f.overview).toMatchObject({ trajectories: 12, successes: 4, n: 10, flagged: { tasks: 1, trajectories: 2, included: true } });
    close(f.judge.kappa, 4 / 7);
    expect([f.humans.labels, f.humans.items]).toEqual([34, 12]);
    close(f.humans.alpha, 256 / 504);
    expect(f.errors).toEqual({ trajectories: 12, labelled: 11, failures: 6, flagged: { tasks: 1, trajectories: 2, included: true } });
    // A figure's selection carries the toggle, so its drill-down lists the flagged trajectories too.
    expect(f.raw.o.columns[0]!.total.sel.includeFlagged).toBe(true);
    await expectDrillsMatch(f.raw.o.columns[0]!.total.sel, 10);
    const list = await api.trajectories.list({ flagged: "include" });
    expect([list.total, list.flaggedHidden]).toEqual([12, null]);
  });

  it("keeps every revision; clearing the flag brings the figures back", async () => {
    await api.tasks.flag({ taskId, status: "wrong_reference", reason: "The reference answer names the old price" });
    const v = await api.tasks.validity({ id: taskId });
    expect(v.history.map((r) => r.status)).toEqual(["broken", "wrong_reference"]);
    expect(v.current!.status).toBe("wrong_reference");
    expect((await figures()).overview.n).toBe(8);
    await api.tasks.flag({ taskId, status: "valid", reason: "The site was restored" });
    const f = await figures();
    expect(f.overview).toMatchObject({ trajectories: 12, n: 10, flagged: { tasks: 0, trajectories: 0 } });
    close(f.judge.kappa, 4 / 7);
    expect((await api.tasks.validity({ id: taskId })).history.map((r) => r.status)).toEqual(["broken", "wrong_reference", "valid"]);
  });

  it("exports the ledger per benchmark as CSV and JSON, every revision with who and when", async () => {
    const entries = await taskValidityLedger(ctx.db, { benchmark: "webvoyager" });
    expect(entries.map((e) => [e.externalId, e.status, e.current])).toEqual([
      ["Shop--medium", "broken", false],
      ["Shop--medium", "wrong_reference", false],
      ["Shop--medium", "valid", true],
    ]);
    expect(entries[0]!.evidenceUrl).toBe("https://example.org/issues/246");
    expect(new Set(entries.map((e) => e.by)).size).toBe(1);
    expect(await taskValidityLedger(ctx.db, { benchmark: "visualwebarena" })).toEqual([]);
    const rows = parseCsv(ledgerCsv(entries));
    expect(rows[0]).toEqual(["taskSet", "benchmark", "taskId", "externalId", "revision", "status", "reason", "evidenceUrl", "by", "at", "current"]);
    expect(rows.slice(1).map((r) => [r[5], r[10]])).toEqual([
      ["broken", "false"],
      ["wrong_reference", "false"],
      ["valid", "true"],
    ]);
  });

  it("exports the ledger from the command line", async () => {
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: "test",
      PATH: process.env.PATH,
      VERDICT_DATA_DIR: ctx.dir,
      VERDICT_DB: ctx.config.dbPath,
      ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : {}),
      VERDICT_AUTH_SECRET: "",
    };
    const csv = await runCliInProcess(["task-validity", "export", "--benchmark", "webvoyager"], env);
    expect(csv.code).toBe(0);
    expect(parseCsv(csv.stdout).map((r) => r[5])).toEqual(["status", "broken", "wrong_reference", "valid"]);
    const json = await runCliInProcess(["task-validity", "export", "--format", "json", "--set", String(fx.taskSetId)], env);
    expect(JSON.parse(json.stdout).map((e: { reason: string }) => e.reason)).toEqual([
      "The product page is gone",
      "The reference answer names the old price",
      "The site was restored",
    ]);
    expect(await runCliInProcess(["task-validity", "export", "--format", "xml"], env)).toMatchObject({ code: 2 });
  });

  it("refuses annotators, a missing reason, a non-web evidence link and an unknown task", async () => {
    await expect(annotator.tasks.flag({ taskId, status: "broken", reason: "x" })).rejects.toThrow(/researchers and admins/);
    await expect(annotator.tasks.validity({ id: taskId })).rejects.toThrow(/researchers and admins/);
    await expect(annotator.trajectories.list({ flagged: "include" })).rejects.toThrow(/researchers and admins/);
    await expect(api.tasks.flag({ taskId, status: "broken", reason: "  " })).rejects.toThrow(/reason is required/);
    await expect(api.tasks.flag({ taskId, status: "broken", reason: "x", evidenceUrl: "javascript:alert(1)" })).rejects.toThrow(/http\(s\) link/);
    await expect(api.tasks.flag({ taskId: 999_999, status: "broken", reason: "x" })).rejects.toThrow(/No task/);
    expect((await api.tasks.validity({ id: taskId })).history).toHaveLength(3);
  });
});
