/**
 * A fork's own task fields (`ques_group`, `lang` in a WebVoyager fork's task JSONL, GAIA's `Level`, a VWA config's
 * `intent_template_id`) land as task attributes on both engines: kept on import, unchanged on re-import, carried
 * through a native bundle, and what cannot be a split key (an object, a list) kept verbatim in the task's extra.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asc } from "drizzle-orm";
import { tablesOf } from "../../db/database";
import { splitTaskFields } from "../../server/domain/catalog/task-attributes";
import { exportBundle } from "../../server/services/bundle-io";
import { runImport } from "../../server/services/imports/ingest";
import { createBackendContext, describeEachBackend, type TestBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

describe("splitTaskFields", () => {
  it("keeps scalars as text, leaves the importer's own fields out and sends the rest to extra", () => {
    const long = "x".repeat(201);
    const split = splitTaskFields(
      { id: "A--1", ques: "q", ques_group: "G2", lang: "en", Level: 3, hard: true, nothing: null, tags: ["a"], meta: { k: 1 }, note: long, ratio: 0.5 },
      new Set(["id", "ques"]),
    );
    expect(split.attributes).toEqual({ ques_group: "G2", lang: "en", Level: "3", hard: "true", ratio: "0.5" });
    expect(split.rest).toEqual({ tags: ["a"], meta: { k: 1 }, note: long });
    expect(splitTaskFields({ id: "A--1" }, new Set(["id"]))).toEqual({ attributes: null, rest: {} });
  });
});

async function taskRows(ctx: TestContext) {
  const { tasks } = tablesOf(ctx.db);
  return ctx.db.select({ externalId: tasks.externalId, attributes: tasks.attributes, extra: tasks.extra }).from(tasks).orderBy(asc(tasks.externalId));
}

describeEachBackend("task attributes", (backend: TestBackend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-attributes-");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  async function forkFolder(): Promise<string> {
    const root = path.join(ctx.dir, "fork");
    await writeWebVoyagerFixture(path.join(root, "results", "20250101_10_00_00"), [
      { id: "Amazon--1", intent: "Find a lamp.", url: "https://amazon.test/", actions: ["Click [0]", "ANSWER; lamp"] },
      { id: "Amazon--2", intent: "Find a desk.", url: "https://amazon.test/", actions: ["ANSWER; desk"] },
    ]);
    fs.mkdirSync(path.join(root, "data"), { recursive: true });
    const rows = [
      { web_name: "Amazon", id: "Amazon--1", ques: "Find a lamp.", web: "https://amazon.test/", ques_group: "G1", lang: "en", hops: 2, sources: ["a", "b"] },
      { web_name: "Amazon", id: "Amazon--2", ques: "Find a desk.", web: "https://amazon.test/", ques_group: "G2", lang: "zh" },
    ];
    fs.writeFileSync(path.join(root, "data", "tasks_fork.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    return root;
  }

  it("a WebVoyager fork's task fields become attributes; a re-import changes nothing", async () => {
    const root = await forkFolder();
    const first = await runImport(ctx, { path: path.join(root, "results") });
    expect(first.created).toBe(2);
    expect(await taskRows(ctx)).toEqual([
      { externalId: "Amazon--1", attributes: { ques_group: "G1", lang: "en", hops: "2" }, extra: { taskFields: { sources: ["a", "b"] } } },
      { externalId: "Amazon--2", attributes: { ques_group: "G2", lang: "zh" }, extra: null },
    ]);
    const again = await runImport(ctx, { path: path.join(root, "results") });
    expect(again.created).toBe(0);
    expect(again.unchanged).toBe(2);
  });

  it("a native bundle carries the attributes to another installation", async () => {
    const root = await forkFolder();
    const report = await runImport(ctx, { path: path.join(root, "results") });
    const out = path.join(ctx.dir, "bundle");
    await exportBundle(
      ctx,
      report.trajectories.map((t) => t.id),
      out,
    );
    const other = await createBackendContext(backend, "verdict-attributes-b-");
    try {
      expect((await runImport(other, { path: out })).created).toBe(2);
      expect((await taskRows(other)).map((t) => [t.externalId, t.attributes])).toEqual([
        ["Amazon--1", { ques_group: "G1", lang: "en", hops: "2" }],
        ["Amazon--2", { ques_group: "G2", lang: "zh" }],
      ]);
    } finally {
      await other.cleanup();
    }
  });

  it("a VisualWebArena config's scalar fields are attributes too", async () => {
    const dir = path.join(ctx.dir, "configs");
    fs.mkdirSync(dir);
    const config = {
      task_id: 7,
      intent: "Buy the red lamp.",
      start_url: "http://shop.test/",
      sites: ["shopping"],
      require_login: true,
      intent_template_id: 12,
      instantiation_dict: { colour: "red" },
      eval: { eval_types: ["string_match"], reference_answers: { exact_match: "done" } },
    };
    fs.writeFileSync(path.join(dir, "test_shopping.raw.json"), JSON.stringify([config]));
    await runImport(ctx, { path: dir, format: "vwa-tasks" });
    const [task] = await taskRows(ctx);
    expect(task!.attributes).toEqual({ require_login: "true", intent_template_id: "12" });
  });
});
