import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteClient } from "../../db/database";
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

const configs = sharedPath("fixtures", "visualwebarena", "config_files");
describe.skipIf(!configs)(titled("VWA task-config importer on ../shared fixtures", configs ? null : "../shared/fixtures absent"), () => {
  it("imports all 910 VWA tasks and 812 WebArena tasks with their evaluators verbatim", async () => {
    const report = await runImport(ctx, { path: configs! });
    expect(report.format).toBe("vwa-tasks");
    expect(report.tasks).toEqual({ created: 1722, updated: 0, unchanged: 0 });
    const sets = sqliteClient(ctx.db)
      .prepare("select s.name, count(*) n from tasks t join task_sets s on s.id = t.task_set_id group by s.name order by s.name")
      .all();
    expect(sets).toEqual([
      { name: "VisualWebArena classifieds", n: 234 },
      { name: "VisualWebArena reddit", n: 210 },
      { name: "VisualWebArena shopping", n: 466 },
      { name: "WebArena", n: 812 },
    ]);
    const rows = sqliteClient(ctx.db)
      .prepare("select external_id, evaluator_config, difficulty, input_images, reference_answers from tasks where external_id like 'visualwebarena.%'")
      .all() as { external_id: string; evaluator_config: string; difficulty: string; input_images: string; reference_answers: string }[];
    expect(rows).toHaveLength(910);
    for (const r of rows) {
      const ev = JSON.parse(r.evaluator_config);
      expect(Array.isArray(ev.eval_types)).toBe(true);
      expect(JSON.parse(r.difficulty).overall).toMatch(/^(easy|medium|hard)$/);
    }
    // reddit task 0 has global id 234 and a url_match evaluator.
    const reddit0 = rows.find((r) => r.external_id === "visualwebarena.234")!;
    expect(JSON.parse(reddit0.evaluator_config)).toMatchObject({ eval_types: ["url_match"], reference_url: "__REDDIT__/f/food/82896" });
    expect(JSON.parse(reddit0.input_images)).toEqual(["environment_docker/webarena-homepage/static/input_images/reddit/task_0/input_0.png"]);
    expect(JSON.parse(reddit0.reference_answers)).toEqual([{ kind: "url", text: "__REDDIT__/f/food/82896" }]);

    const again = await runImport(ctx, { path: configs! });
    expect(again.tasks).toEqual({ created: 0, updated: 0, unchanged: 1722 });
  });
});
