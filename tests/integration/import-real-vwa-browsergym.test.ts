/**
 * Other people's VisualWebArena/WebArena and BrowserGym/AgentLab runs, exactly as they left them in ../shared:
 * every trajectory must import, none skipped, and a second import must change nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getTrajectoryDetail } from "../../db/repositories/trajectories";
import { detectImporter } from "../../server/importers/registry";
import type { ImportItem, Importer } from "../../server/importers/types";
import { runImport } from "../../server/services/ingest";
import { createTestContext, sharedPath, type TestContext } from "../helpers/context";

let ctx: TestContext;
beforeEach(() => {
  ctx = createTestContext();
});
afterEach(() => ctx.cleanup());

async function itemsOf(importer: Importer, input: string): Promise<ImportItem[]> {
  const out: ImportItem[] = [];
  for await (const item of importer.read(input, {})) out.push(item);
  return out;
}

const webarena = sharedPath("fixtures", "real", "webarena-huiyuanyan");

describe.skipIf(!webarena)("WebArena renders from HuiyuanYan/webarena (skipped: ../shared/fixtures/real absent)", () => {
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
    const byId = new Map(report.trajectories.map((t) => [t.externalTaskId, getTrajectoryDetail(ctx.db, t.id)!]));
    // The unfinished task: error.txt says why it stopped.
    expect(byId.get("webarena.9")!.trajectory.outcome).toBe("error");
    expect(byId.get("webarena.9")!.trajectory.outcomeDetail).toMatch(/^the run failed: TimeoutError\('Timeout 30000\.0ms exceeded/);
    expect(byId.get("webarena.6")!.trajectory.outcome).toBe("answered");
    // This fork renders the Enter of `type [17] [disappointed] [1]` as a trailing space.
    const typed = byId.get("webarena.11")!.steps.filter((s) => s.action.type === "type").map((s) => s.action);
    expect(typed).toContainEqual({ type: "type", target: "17", value: "disappointed", submit: true });
    expect(typed.every((a) => a.submit === true)).toBe(true);
    expect(new Set([...byId.values()].map((d) => d.run.model))).toEqual(new Set(["llama3:8b"]));

    const again = await runImport(ctx, { path: webarena! });
    expect([again.created, again.updated, again.unchanged]).toEqual([0, 0, 11]);
  });
});
