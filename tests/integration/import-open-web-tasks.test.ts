/**
 * Open-web task files as task sets: WebVoyager's JSONL and Online-Mind2Web's JSON array, both read as
 * `webvoyager-tasks`, with the per-task step and time limits a lab may add (max_steps, time_limit_seconds).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rawAll } from "../../db/database";
import { detectImporter } from "../../server/importers/registry";
import { runImport } from "../../server/services/imports/ingest";
import { createTestContext, type TestContext } from "../helpers/context";

let ctx: TestContext;
let dir: string;
beforeEach(() => {
  ctx = createTestContext();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-open-web-tasks-"));
});
afterEach(async () => {
  await ctx.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function storedTasks(set: string) {
  const rows = await rawAll<{
    external_id: string;
    intent: string;
    start_url: string | null;
    site: string | null;
    extra: string | null;
    difficulty: string | null;
  }>(
    ctx.db,
    sql`select t.external_id, t.intent, t.start_url, t.site, t.extra, t.difficulty from tasks t join task_sets s on s.id = t.task_set_id where s.name = ${set} order by t.external_id`,
  );
  return rows.map((r) => ({ ...r, extra: r.extra ? JSON.parse(r.extra) : null, difficulty: r.difficulty ? JSON.parse(r.difficulty) : null }));
}

describe("open-web task files", () => {
  it("WebVoyager rows keep their own step and time limits; a row without them has none", async () => {
    const file = path.join(dir, "WebVoyager_data.jsonl");
    fs.writeFileSync(
      file,
      [
        {
          web_name: "Allrecipes",
          id: "Allrecipes--0",
          ques: "Find a lasagna recipe",
          web: "https://www.allrecipes.com/",
          max_steps: 20,
          time_limit_seconds: 300,
        },
        { web_name: "Allrecipes", id: "Allrecipes--1", ques: "Find a soup recipe", web: "https://www.allrecipes.com/" },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    expect((await detectImporter(file)).format).toBe("webvoyager-tasks");
    await runImport({ db: ctx.db, store: ctx.store }, { path: file });
    const tasks = await storedTasks("WebVoyager");
    expect(tasks.map((t) => [t.external_id, t.extra])).toEqual([
      ["Allrecipes--0", { max_steps: 20, time_limit_seconds: 300 }],
      ["Allrecipes--1", null],
    ]);
  });

  it("an Online-Mind2Web task file becomes the Online-Mind2Web task set", async () => {
    const file = path.join(dir, "Online_Mind2Web.json");
    fs.writeFileSync(
      file,
      JSON.stringify([
        {
          task_id: "b7258ee05d75e6c50673a59914db412e",
          confirmed_task: "Find the cheapest used Civic",
          website: "https://www.carmax.com/",
          reference_length: 7,
          level: "medium",
        },
        { task_id: "c1", confirmed_task: "Open the return policy", website: "https://www.ikea.com/", reference_length: 3, level: "easy", max_steps: 10 },
      ]),
    );
    expect((await detectImporter(file)).format).toBe("webvoyager-tasks");
    await runImport({ db: ctx.db, store: ctx.store }, { path: file });
    const tasks = await storedTasks("Online-Mind2Web");
    expect(tasks).toEqual([
      {
        external_id: "b7258ee05d75e6c50673a59914db412e",
        intent: "Find the cheapest used Civic",
        start_url: "https://www.carmax.com/",
        site: "carmax.com",
        extra: { reference_length: 7 },
        difficulty: { overall: "medium", reasoning: null, visual: null },
      },
      {
        external_id: "c1",
        intent: "Open the return policy",
        start_url: "https://www.ikea.com/",
        site: "ikea.com",
        extra: { reference_length: 3, max_steps: 10 },
        difficulty: { overall: "easy", reasoning: null, visual: null },
      },
    ]);
  });

  it("a bad limit fails the import naming the file, the row and the field", async () => {
    const wv = path.join(dir, "WebVoyager_data.jsonl");
    fs.writeFileSync(wv, JSON.stringify({ web_name: "BBC News", id: "BBC News--9", ques: "Read", web: "https://www.bbc.com/", max_steps: 0 }) + "\n");
    await expect(runImport({ db: ctx.db, store: ctx.store }, { path: wv })).rejects.toThrow(
      `${wv}: line 1 (task BBC News--9): field "max_steps" must be a whole number from 1 to 1000, not 0`,
    );
    const m2w = path.join(dir, "Online_Mind2Web.json");
    fs.writeFileSync(m2w, JSON.stringify([{ task_id: "x1", confirmed_task: "Read", website: "https://www.bbc.com/", time_limit_seconds: "5 min" }]));
    await expect(runImport({ db: ctx.db, store: ctx.store }, { path: m2w })).rejects.toThrow(
      `${m2w}: task at index 0 (task x1): field "time_limit_seconds" must be a number of seconds above 0 and at most 86400, not "5 min"`,
    );
    const vwa = path.join(dir, "test_reddit.raw.json");
    fs.writeFileSync(vwa, JSON.stringify([{ task_id: 3, intent: "Find it", start_url: "__REDDIT__/", max_steps: 2.5 }]));
    await expect(runImport({ db: ctx.db, store: ctx.store }, { path: vwa })).rejects.toThrow(
      `${vwa}: task at index 0 (task_id 3): field "max_steps" must be a whole number from 1 to 1000, not 2.5`,
    );
  });
});
