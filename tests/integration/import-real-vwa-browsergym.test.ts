/**
 * Other people's VisualWebArena/WebArena and BrowserGym/AgentLab runs, exactly as they left them in ../shared:
 * every trajectory must import, none skipped, and a second import must change nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { detectImporter } from "../../server/importers/registry";
import type { ImportItem, Importer } from "../../server/importers/types";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, sharedPath, type TestContext } from "../helpers/context";
import { titled } from "../helpers/requirements";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(async () => {
  await ctx.cleanup();
});

async function itemsOf(importer: Importer, input: string): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of importer.read(input, {})) out.push(item);
  return out;
}

const webarena = sharedPath("fixtures", "real", "webarena-huiyuanyan");

describe.skipIf(!webarena)(titled("WebArena renders from HuiyuanYan/webarena", webarena ? null : "../shared/fixtures/real absent"), () => {
  it("imports all 11 renders with nothing skipped, error.txt read, and re-imports unchanged", async () => {
    const importer = await detectImporter(webarena!);
    expect(importer.format).toBe("vwa-render");
    const items = await itemsOf(importer, webarena!);
    expect(items.filter((i) => i.kind === "skipped")).toEqual([]);
    expect(items.filter((i) => i.kind === "trajectory").map((i) => (i.kind === "trajectory" ? i.trajectory.task.externalId : ""))).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 8, 9, 11, 12].map((n) => `webarena.${n}`),
    );

    const report = await runImport(ctx, { path: webarena! });
    expect([report.created, report.updated, report.unchanged]).toEqual([11, 0, 0]);
    const byId = new Map(await Promise.all(report.trajectories.map(async (t) => [t.externalTaskId, (await getTrajectoryDetail(ctx.db, t.id))!] as const)));
    // The unfinished task: error.txt says why it stopped.
    expect(byId.get("webarena.9")!.trajectory.outcome).toBe("error");
    expect(byId.get("webarena.9")!.trajectory.outcomeDetail).toMatch(/^the run failed: TimeoutError\('Timeout 30000\.0ms exceeded/);
    expect(byId.get("webarena.6")!.trajectory.outcome).toBe("answered");
    // This fork renders the Enter of `type [17] [disappointed] [1]` as a trailing space.
    const typed = byId
      .get("webarena.11")!
      .steps.filter((s) => s.action.type === "type")
      .map((s) => s.action);
    expect(typed).toContainEqual({ type: "type", target: "17", value: "disappointed", submit: true });
    expect(typed.every((a) => a.submit === true)).toBe(true);
    expect(new Set([...byId.values()].map((d) => d.run.model))).toEqual(new Set(["llama3:8b"]));

    const again = await runImport(ctx, { path: webarena! });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 11]);
  });
});

const pr301 = sharedPath("fixtures", "real", "browsergym-pr301");

describe.skipIf(!pr301)(titled("BrowserGym experiments from BrowserGym PR 301", pr301 ? null : "../shared/fixtures/real absent"), () => {
  it("imports all 9 experiments with goals and actions from experiment.log, reports beside them passed over", async () => {
    const importer = await detectImporter(pr301!);
    expect(importer.format).toBe("browsergym");
    const items = await itemsOf(importer, pr301!);
    expect(items.filter((i) => i.kind === "skipped")).toEqual([]);
    const trajs = items.flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
    expect(trajs).toHaveLength(9);
    // Every step the agent acted at is known from the log; only the final observations are no-ops.
    for (const t of trajs) {
      expect(t.steps.filter((s) => s.action.type === "unparsed")).toEqual([]);
      expect(t.steps[t.steps.length - 1]!.action).toEqual({ type: "noop" });
    }
    const kb = trajs.find((t) => t.task.externalId === "workarena.servicenow.knowledge-base-search#seed5")!;
    expect(kb.task.intent).toMatch(/^Answer the following question using the knowledge base: "What's the exact amount of water/);
    expect(kb.finalAnswer).toBe("The exact amount of water that office #456 utilizes each year is 50,000 gallons.");
    expect(kb.steps[0]!.action).toEqual({ type: "type", target: "112", value: "water usage office #456", submit: false });
    expect(kb.steps[0]!.url).toBe("https://dev282647.service-now.com/now/nav/ui/classic/params/target/kb?id=kb_home");
    const crashed = trajs.find((t) => t.task.externalId.startsWith("workarena.servicenow.filter-asset-list"))!;
    expect(crashed.outcome).toBe("error");
    // The same task with another seed has another goal, so another task.
    const ipadPro = trajs.filter((t) => t.task.externalId.startsWith("workarena.servicenow.order-ipad-pro#"));
    expect(new Set(ipadPro.map((t) => t.task.externalId)).size).toBe(3);
    expect(new Set(ipadPro.map((t) => t.task.intent)).size).toBe(3);

    const report = await runImport(ctx, { path: pr301! });
    expect([report.created, report.updated, report.unchanged]).toEqual([9, 0, 0]);
    const again = await runImport(ctx, { path: pr301! });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 9]);
  });
});

const agentlab = sharedPath("fixtures", "real", "agentlab-error-analysis");

describe.skipIf(!agentlab)(titled("AgentLab error-analysis experiments", agentlab ? null : "../shared/fixtures/real absent"), () => {
  it("imports all 4 experiments with no screenshots and no log; study summaries and the error report are passed over", async () => {
    const importer = await detectImporter(agentlab!);
    expect(importer.format).toBe("browsergym");
    const items = await itemsOf(importer, agentlab!);
    expect(items.filter((i) => i.kind === "skipped")).toEqual([]);
    const trajs = items.flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
    expect(trajs.map((t) => [t.task.externalId, t.steps.length])).toEqual([
      ["miniwob.click-checkboxes#seed7", 3],
      ["miniwob.click-checkboxes#seed20", 4],
      ["miniwob.click-dialog#seed14", 2],
      ["miniwob.click-dialog#seed28", 2],
    ]);
    expect(new Set(trajs.map((t) => t.run.model))).toEqual(new Set(["gpt-4o-mini"]));

    const report = await runImport(ctx, { path: agentlab! });
    expect([report.created, report.updated, report.unchanged]).toEqual([4, 0, 0]);
    const again = await runImport(ctx, { path: agentlab! });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 4]);
  });
});
