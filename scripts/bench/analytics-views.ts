/**
 * What the analytics bench (analytics.ts) and its before/after comparison (analytics-ab.ts) time, written once: the
 * views as the tRPC procedures compute them, the writes that come before a view "after a label" or "after a
 * verdict", and the timing of one view.
 */
import { sql } from "drizzle-orm";
import { rawRun, type Db } from "../../db/database";
import {
  analyticsOverview,
  drillDown,
  errorAnalysis,
  humanAgreement,
  humanConsensus,
  judgeAgreementDetail,
  judgeAgreementList,
  judgeDisagreements,
} from "../../server/services/analytics";
import { serverCpuMs } from "./server-cpu";
import { timedRuns } from "./types";

/** The views over the generated dataset, for its campaign and one of its judges. */
export function analyticsViews(db: Db, campaignId: number, judge: string) {
  const scope = {};
  return {
    overview: () => analyticsOverview(db, { scope, unparseable: "exclude", difficulty: "overall" }),
    allJudges: () => judgeAgreementList(db, { scope, unparseable: "exclude" }),
    oneJudge: () => judgeAgreementDetail(db, { scope, unparseable: "exclude", evaluatorKey: judge }),
    majorityBySite: () => judgeAgreementDetail(db, { scope, unparseable: "exclude", evaluatorKey: judge, reference: { kind: "majority" }, by: "site" }),
    disagreements: () =>
      judgeDisagreements(db, { scope, unparseable: "exclude", identity: { key: judge, k: "3", pv: "webvoyager-v1" }, kind: "all", page: 1, pageSize: 50 }),
    humans: () => humanAgreement(db, campaignId),
    humansBySite: () => humanAgreement(db, campaignId, "site"),
    consensus: () => humanConsensus(db, campaignId, "label"),
    errors: () => errorAnalysis(db, { scope }),
    drill: () => drillDown(db, { sel: { site: "GitHub", reference: { verdicts: ["failure"] } }, page: 1, pageSize: 50 }),
  };
}

/**
 * Writes as the application makes them, flipping one row back and forth so the data stay the same size: one label
 * and its consolidated label (annotators at work), or one verdict of the judge (a judge batch running).
 */
export function analyticsWrites(db: Db, campaignId: number, judge: string) {
  return {
    afterLabel: async () => {
      await rawRun(
        db,
        sql`update labels set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select min(id) from labels where campaign_id = ${campaignId})`,
      );
      await rawRun(
        db,
        sql`update consolidated_labels set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select min(id) from consolidated_labels where campaign_id = ${campaignId})`,
      );
    },
    afterVerdict: async () => {
      await rawRun(
        db,
        sql`update evaluator_verdicts set verdict = case verdict when 'success' then 'failure' else 'success' end where id = (select min(id) from evaluator_verdicts where evaluator_key = ${judge})`,
      );
    },
  };
}

/**
 * Median wall time, CPU time of this process and of the PostgreSQL server's processes (0 on SQLite) of `runs` calls
 * after one warm-up; `before` runs untimed before each.
 */
export async function measureView(db: Db, fn: () => unknown, before: (() => unknown) | undefined, runs: number) {
  await before?.();
  await fn();
  const serverCpus: number[] = [];
  let server = 0;
  const { times, cpus } = await timedRuns(runs, fn, {
    before: async () => {
      await before?.();
      server = await serverCpuMs(db);
    },
    after: async () => serverCpus.push((await serverCpuMs(db)) - server),
  });
  const median = (v: number[]) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  return { wall: median(times), cpu: median(cpus), serverCpu: median(serverCpus) };
}
