/**
 * Scanners on both engines (issue 29, item 3): a run queued through the API and done by the worker stores matches
 * per step, the built-in CAPTCHA scanner is measured against hand-labelled trajectories and steps with the figures
 * worked out below, the blank-page scanner reads pixels, a slow stored pattern is stopped and reported, the list's
 * `scanner:` search and the player's markers read the matches, and an edited scanner's old results go.
 *
 * The fixture (3 steps each):
 *   T0–T2  a CAPTCHA at step 1, people said "captcha"                → fired, positive
 *   T3     a CAPTCHA at step 1, people said "navigation stuck"       → fired, negative
 *   T4     no CAPTCHA text, people said "captcha"                    → not fired, positive
 *   T5–T10 clean, people said success or "hallucination"             → not fired, negative
 *   T11    blank screenshot at step 2, unlabelled
 *   T12    a CAPTCHA at step 0 and a thought of 40 "a"s, unlabelled  → fired, outside the measure
 *   T11, T12 also labelled in a campaign on the default categories (no "captcha")   → outside the measure
 * Per trajectory: TP 3, FP 1, FN 1, TN 6 → precision 3/4, recall 3/4, n = 11.
 * Per step (a second campaign asks "fault at this step?" with the option CAPTCHA): T0 step 1; T1 steps 1 and 2;
 * T5 step 0 "none". 9 steps: TP 2, FP 0, FN 1, TN 6 → precision 2/2, recall 2/3, not enough labels (n < 10).
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBackendContext, describeEachBackend, type TestBackend } from "../helpers/backends";
import type { createCaller } from "../../server/api/root";
import { callerWithRole } from "../helpers/trpc";
import type { TestContext } from "../helpers/context";
import { ensureTaskSet, upsertRun, upsertTask } from "../../db/repositories/catalog";
import { saveTrajectory } from "../../db/repositories/trajectories";
import { insertScreenshotIfMissing } from "../../db/repositories/screenshots";
import { getItemByTrajectory, importedAnnotatorKey, insertCampaign, insertCampaignItems } from "../../db/repositories/annotation/campaigns";
import { insertLabel, upsertConsolidated } from "../../db/repositories/annotation/labels";
import { insertStoredScanner, saveScanResult } from "../../db/repositories/evaluation/scanners";
import { defaultLabelSchema } from "../../server/domain/annotation/label-schema";
import { sha256 } from "../../server/domain/content-hash";
import { runWorker } from "../../server/services/jobs/worker";
import { SCANNER_RUN_JOB_TYPE, scannerSlice } from "../../server/services/evaluation/scanner-jobs";
import { scannerRunJobHandler } from "../../server/services/evaluation/scanner-job";
import { scanTrajectories, requireScanner, scannerDetail } from "../../server/services/evaluation/scanners";

type Spec = { elements?: string[]; thought?: string; screenshot?: string };

async function storePng(ctx: TestContext, png: Buffer): Promise<string> {
  const hash = sha256(png);
  const file = ctx.store.pathFor(hash);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, png);
  await insertScreenshotIfMissing(ctx.db, { hash, mime: "image/png", width: 160, height: 100, bytes: png.byteLength });
  return hash;
}

describeEachBackend("scanners", (backend: TestBackend) => {
  let ctx: TestContext;
  let api: ReturnType<typeof createCaller>;
  const T: number[] = [];

  async function seed() {
    const white = await storePng(
      ctx,
      await sharp({ create: { width: 160, height: 100, channels: 3, background: "#ffffff" } })
        .png()
        .toBuffer(),
    );
    const noise = Buffer.alloc(160 * 100 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919) % 251;
    const page = await storePng(
      ctx,
      await sharp(noise, { raw: { width: 160, height: 100, channels: 3 } })
        .png()
        .toBuffer(),
    );
    const captcha = { elements: ["I'm not a robot", "reCAPTCHA"] };
    const specs: Spec[][] = [
      ...Array.from({ length: 4 }, () => [{}, captcha, {}]),
      [{ thought: "The page will not load the results" }, {}, {}],
      ...Array.from({ length: 6 }, () => [{ elements: ["Search", "Cart"] }, {}, {}]),
      [{ screenshot: page }, {}, { screenshot: white }],
      [{ ...captcha, thought: `${"a".repeat(40)}!` }, {}, {}],
    ];
    const setId = await ensureTaskSet(ctx.db, { name: "Scanner set", benchmark: "webvoyager" });
    const runId = await upsertRun(ctx.db, { runKey: "scanner:run", name: "run", agentName: "agent", model: "m", sourceSystem: "test", config: null });
    for (const [i, steps] of specs.entries()) {
      const { id: taskId } = await upsertTask(ctx.db, setId, {
        externalId: `t${i}`,
        site: "Example",
        intent: `Task ${i}`,
        startUrl: null,
        contentHash: `scan-task-${i}`,
      });
      const { id } = await saveTrajectory(ctx.db, {
        runId,
        taskId,
        attempt: 0,
        finalAnswer: "done",
        outcome: "answered",
        outcomeDetail: null,
        stepCount: steps.length,
        sourceFormat: "test",
        sourcePath: null,
        contentHash: `scan-${i}`,
        steps: steps.map((s, index) => ({
          index,
          url: `https://example.test/${index}`,
          thought: s.thought ?? null,
          actionRaw: `Click [${index}]`,
          action: { type: "click" as const, target: String(index) },
          elements: s.elements?.map((text, k) => ({ label: String(k), bbox: null, text })) ?? null,
          screenshotHash: s.screenshot ?? null,
        })),
      });
      T.push(id);
    }
  }

  async function seedLabels() {
    const outcomes: (string | null | "S")[] = [
      "captcha",
      "Captcha",
      "captcha ",
      "navigation stuck",
      "captcha",
      "S",
      "S",
      "hallucination",
      "S",
      "hallucination",
      "S",
    ];
    const campaignId = await insertCampaign(ctx.db, {
      name: "Outcome",
      labelSchema: { ...defaultLabelSchema(), categories: ["captcha", "navigation stuck", "hallucination"], requireCategory: false },
      annotatorsPerItem: 1,
      selection: { description: "11" },
      origin: "import",
    });
    await insertCampaignItems(ctx.db, campaignId, T.slice(0, 11));
    for (const [i, o] of outcomes.entries()) {
      const itemId = (await getItemByTrajectory(ctx.db, campaignId, T[i]!))!.id;
      const v = o === "S" ? { verdict: "success" as const, category: null } : { verdict: "failure" as const, category: o };
      await upsertConsolidated(ctx.db, { campaignId, itemId, trajectoryId: T[i]!, ...v, firstFailingStep: null, method: "adjudicated", basedOn: [] });
    }
    // A campaign on the default schema, whose categories hold no "captcha": its labels say nothing of CAPTCHAs, so
    // T12 (fired) and T11 stay out of the CAPTCHA measure instead of counting as a false positive and a negative.
    const plain = await insertCampaign(ctx.db, {
      name: "Default categories",
      labelSchema: defaultLabelSchema(),
      annotatorsPerItem: 1,
      selection: { description: "2" },
      origin: "import",
    });
    await insertCampaignItems(ctx.db, plain, [T[11]!, T[12]!]);
    for (const [trajectoryId, v] of [
      [T[11]!, { verdict: "success" as const, category: null }],
      [T[12]!, { verdict: "failure" as const, category: "navigation stuck" }],
    ] as const) {
      const itemId = (await getItemByTrajectory(ctx.db, plain, trajectoryId))!.id;
      await upsertConsolidated(ctx.db, { campaignId: plain, itemId, trajectoryId, ...v, firstFailingStep: null, method: "adjudicated", basedOn: [] });
    }
    const question = {
      id: "fault",
      prompt: "Fault at this step?",
      required: false,
      perStep: true,
      when: "always" as const,
      type: "single_choice" as const,
      options: ["CAPTCHA", "none"],
    };
    const steps = await insertCampaign(ctx.db, {
      name: "Steps",
      labelSchema: { ...defaultLabelSchema(), requireCategory: false, questions: [question] },
      annotatorsPerItem: 1,
      selection: { description: "3" },
      origin: "import",
    });
    const answers: [number, Record<string, string>][] = [
      [T[0]!, { "1": "CAPTCHA" }],
      [T[1]!, { "1": "CAPTCHA", "2": "CAPTCHA" }],
      [T[5]!, { "0": "none" }],
    ];
    await insertCampaignItems(
      ctx.db,
      steps,
      answers.map(([id]) => id),
    );
    for (const [trajectoryId, fault] of answers) {
      const itemId = (await getItemByTrajectory(ctx.db, steps, trajectoryId))!.id;
      await insertLabel(ctx.db, {
        campaignId: steps,
        itemId,
        trajectoryId,
        annotatorKey: importedAnnotatorKey("ann"),
        annotatorName: "ann",
        origin: "import",
        verdict: "failure",
        category: null,
        answers: { fault },
      });
    }
  }

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-scanners-");
    api = await callerWithRole(ctx, "researcher");
    await seed();
    await seedLabels();
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  it("runs as a worker job over a slice and stores matches per step", async () => {
    const { jobId } = await api.scanners.run({ scannerKeys: ["captcha", "blank_page"], filter: { taskSetId: undefined } });
    expect((await api.scanners.job({ id: jobId })).status).toBe("queued");
    await runWorker({ db: ctx.db, handlers: { [SCANNER_RUN_JOB_TYPE]: scannerRunJobHandler(ctx) }, concurrency: 1, untilIdle: true });
    const job = await api.scanners.job({ id: jobId });
    expect(job.status).toBe("succeeded");
    expect(job.progress).toEqual({ done: 13, total: 13 });
    expect(job.result!.byScanner).toEqual({
      captcha: { scanned: 13, fired: 5, stepsMatched: 5, problems: 0 },
      // Only T11 has screenshots: the other twelve scans could not look and say so instead of passing as clean.
      blank_page: { scanned: 13, fired: 1, stepsMatched: 1, problems: 12 },
    });
    expect(job.result!.problems.filter((p) => p.scannerKey === "blank_page").map((p) => p.trajectoryId)).toEqual(T.filter((_, i) => i !== 11));
    expect(new Set(job.result!.problems.map((p) => p.problem))).toEqual(new Set(["nothing to read: this trajectory has no screenshots"]));
    const t0 = await api.scanners.trajectory({ trajectoryId: T[0]! });
    expect(t0).toEqual({
      hidden: false,
      matches: [{ scannerKey: "captcha", scannerName: "CAPTCHA", stepIndex: 1, field: "element", matchedText: "I'm not a robot" }],
    });
    const t11 = await api.scanners.trajectory({ trajectoryId: T[11]! });
    expect(t11.matches).toEqual([
      { scannerKey: "blank_page", scannerName: "Blank page", stepIndex: 2, field: "screenshot", matchedText: "100% of the screenshot is one colour (white)" },
    ]);
  });

  it("refuses a slice larger than one run scans, naming the limit, instead of holding the worker lane for hours", async () => {
    expect(await scannerSlice(ctx.db, {}, 13)).toHaveLength(13);
    await expect(scannerSlice(ctx.db, {}, 12)).rejects.toThrow("this slice has more than 12 trajectories, more than one scanner run reads: narrow it");
  });

  it("measures precision and recall against labelled trajectories and hand-labelled steps", async () => {
    const { measures, scanner, matchCount } = await api.scanners.detail({ key: "captcha" });
    expect([scanner.scanned, scanner.fired, matchCount]).toEqual([13, 5, 5]);
    const t = measures.trajectory;
    expect([t.n, t.truePositives, t.falsePositives, t.falseNegatives, t.trueNegatives, t.enough]).toEqual([11, 3, 1, 1, 6, true]);
    expect(t.precision.estimate).toBeCloseTo(3 / 4, 12);
    expect(t.recall.estimate).toBeCloseTo(3 / 4, 12);
    // Wilson 95% for 3 of 4: [0.3006, 0.9544].
    expect(t.precision.low).toBeCloseTo(0.30064, 4);
    expect(t.recall.high).toBeCloseTo(0.9544, 4);
    const s = measures.step!;
    expect([s.n, s.truePositives, s.falsePositives, s.falseNegatives, s.trueNegatives, s.enough]).toEqual([9, 2, 0, 1, 6, false]);
    expect(s.recall.estimate).toBeCloseTo(2 / 3, 12);
    expect(measures.trajectoryNote).toBeNull();
    // No one marked blank pages per step, and no campaign offers the category "site down": nothing to measure, said so.
    const blank = await api.scanners.detail({ key: "blank_page" });
    expect(blank.measures.step).toBeNull();
    expect([blank.measures.trajectory.n, blank.measures.trajectory.falsePositives, blank.measures.trajectory.enough]).toEqual([0, 0, false]);
    expect(blank.measures.trajectoryNote).toBe('no campaign asks for "site down": add it to a campaign\'s error categories to measure this scanner');
  });

  it("filters the list with scanner: in the search syntax", async () => {
    const ids = async (search: string) =>
      (await api.trajectories.list({ search, flagged: "include", pageSize: 100 })).rows.map((r) => r.id).sort((a, b) => a - b);
    expect(await ids("scanner:captcha")).toEqual([T[0], T[1], T[2], T[3], T[12]]);
    expect(await ids("scanner:blank_page")).toEqual([T[11]]);
    expect(await ids("-scanner:captcha")).toEqual([T[4], T[5], T[6], T[7], T[8], T[9], T[10], T[11]]);
    // The blank-page scans of trajectories without screenshots could not look: they are not "clean".
    expect(await ids("-scanner:blank_page")).toEqual([]);
    expect(await ids("-scanner:captcha -scanner:blank_page")).toEqual([]);
    const typo = api.trajectories.list({ search: "scanner:captha" });
    await expect(typo).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(typo).rejects.toThrow(/^search: scanner:captha names no scanner; the scanners are captcha, login_wall, access_denied, site_down, blank_page,/);
  });

  it("stops a slow stored pattern at its time budget and reports the scan instead of calling it clean", async () => {
    // Written straight to the table, as an older version or a hand edit could have: the save-time guard never saw it.
    await insertStoredScanner(ctx.db, {
      key: "slow",
      name: "Slow",
      description: "",
      category: "x",
      rules: [{ kind: "regex", fields: ["thought"], pattern: "^(a+)+$", flags: "" }],
      minConsecutive: 1,
      createdBy: null,
    });
    const report = await scanTrajectories(ctx, [await requireScanner(ctx.db, "slow")], [T[12]!, T[4]!]);
    expect(report.problems).toEqual([{ scannerKey: "slow", trajectoryId: T[12], problem: expect.stringMatching(/took longer than 2000 ms/) }]);
    expect(report.byScanner.slow).toEqual({ scanned: 2, fired: 0, stepsMatched: 0, problems: 1 });
    const summary = (await api.scanners.list()).find((s) => s.key === "slow")!;
    expect([summary.scanned, summary.problems]).toEqual([2, 1]);
    expect((await api.scanners.detail({ key: "slow" })).measures.unfinished).toBe(1);
    // Only T4 was scanned to the end: T12 ran out of time and the rest were never scanned by "slow".
    const search = async (q: string) => (await api.trajectories.list({ search: q, flagged: "include", pageSize: 100 })).rows.map((r) => r.id);
    expect(await search("-scanner:slow")).toEqual([T[4]]);
    expect(await search("scanner:slow")).toEqual([]);
  });

  it("keeps a text rule that reads fields the trajectory never recorded out of the measures and of -scanner:", async () => {
    await insertStoredScanner(ctx.db, {
      key: "errors",
      name: "Errors",
      description: "",
      category: "captcha",
      rules: [{ kind: "regex", fields: ["error"], pattern: "captcha", flags: "i" }],
      minConsecutive: 1,
      createdBy: null,
    });
    const report = await scanTrajectories(ctx, [await requireScanner(ctx.db, "errors")], T.slice(0, 11));
    expect(report.byScanner.errors).toEqual({ scanned: 11, fired: 0, stepsMatched: 0, problems: 11 });
    expect(report.problems[0]!.problem).toBe("nothing to read: this trajectory has no error text");
    const { measures } = await api.scanners.detail({ key: "errors" });
    expect([measures.unfinished, measures.trajectory.n, measures.trajectory.falseNegatives]).toEqual([11, 0, 0]);
    expect((await api.trajectories.list({ search: "-scanner:errors", flagged: "include", pageSize: 100 })).rows).toEqual([]);
  });

  it("does not count a scan as clean when a field it reads was longer than it reads, and still keeps a match found", async () => {
    await insertStoredScanner(ctx.db, {
      key: "robot_thought",
      name: "Robot in thought",
      description: "",
      category: "captcha",
      rules: [{ kind: "regex", fields: ["thought"], pattern: "not a robot", flags: "i" }],
      minConsecutive: 1,
      createdBy: null,
    });
    const runId = await upsertRun(ctx.db, { runKey: "scanner:long", name: "long", agentName: "agent", model: "m", sourceSystem: "test", config: null });
    const setId = await ensureTaskSet(ctx.db, { name: "Scanner set", benchmark: "webvoyager" });
    const ids: number[] = [];
    for (const [i, thought] of [`${"x".repeat(25_000)} I'm not a robot`, `I'm not a robot ${"x".repeat(25_000)}`].entries()) {
      const { id: taskId } = await upsertTask(ctx.db, setId, {
        externalId: `long${i}`,
        site: "Example",
        intent: "Long",
        startUrl: null,
        contentHash: `long-task-${i}`,
      });
      const { id } = await saveTrajectory(ctx.db, {
        runId,
        taskId,
        attempt: 0,
        finalAnswer: "done",
        outcome: "answered",
        outcomeDetail: null,
        stepCount: 1,
        sourceFormat: "test",
        sourcePath: null,
        contentHash: `long-${i}`,
        steps: [
          { index: 0, url: null, thought, actionRaw: "Click [0]", action: { type: "click" as const, target: "0" }, elements: null, screenshotHash: null },
        ],
      });
      ids.push(id);
    }
    const report = await scanTrajectories(ctx, [await requireScanner(ctx.db, "robot_thought")], ids);
    expect(report.byScanner.robot_thought).toEqual({ scanned: 2, fired: 1, stepsMatched: 1, problems: 1 });
    expect(report.problems).toEqual([
      {
        scannerKey: "robot_thought",
        trajectoryId: ids[0],
        problem: "read only the first 20,000 characters of 1 field (the longest has 25,016): a match past them would not be seen",
      },
    ]);
    const listed = async (search: string) => (await api.trajectories.list({ search, flagged: "include", pageSize: 100 })).rows.map((r) => r.id);
    expect(await listed("scanner:robot_thought")).toEqual([ids[1]]);
    expect(await listed("-scanner:robot_thought")).toEqual([]);
  });

  it("creates, edits and deletes a researcher's scanner; an edit drops the old results", async () => {
    await api.scanners.create({ key: "robot", name: "Robot", category: "captcha", rules: [{ kind: "regex", fields: ["element"], pattern: "not a robot" }] });
    await scanTrajectories(ctx, [await requireScanner(ctx.db, "robot")], T);
    expect((await api.scanners.list()).find((s) => s.key === "robot")).toMatchObject({ scanned: 13, fired: 5, builtIn: false });
    await api.scanners.update({ key: "robot", name: "Robot", category: "captcha", rules: [{ kind: "regex", fields: ["thought"], pattern: "robot" }] });
    expect((await api.scanners.list()).find((s) => s.key === "robot")).toMatchObject({ scanned: 0, fired: 0 });
    expect((await api.scanners.detail({ key: "robot" })).matchCount).toBe(0);
    await api.scanners.remove({ key: "robot" });
    await expect(api.scanners.detail({ key: "robot" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(api.scanners.remove({ key: "captcha" })).rejects.toThrow(/built in and cannot be deleted/);
  });
  it("shows, searches and counts only matches of the scanner's current definition, and limits the detail's list in the query", async () => {
    const researcherActor = { userId: "scanner-reader", name: "Reader", role: "researcher" as const };
    const detail = await scannerDetail(ctx.db, researcherActor, "captcha", 2);
    expect([detail.matches.length, detail.matchCount]).toEqual([2, 5]);
    expect(detail.matches.map((m) => m.trajectoryId)).toEqual([T[0], T[1]]);
    // A scan of T5 made with an older definition of the CAPTCHA scanner (before an upgrade changed it).
    await saveScanResult(ctx.db, {
      scannerKey: "captcha",
      trajectoryId: T[5]!,
      definitionHash: "0ld0ld0ld0ld0ld0",
      problem: null,
      matches: [{ stepIndex: 0, ruleIndex: 0, field: "element", matchedText: "old finding" }],
    });
    expect((await api.scanners.trajectory({ trajectoryId: T[5]! })).matches).toEqual([]);
    const listed = async (search: string) => (await api.trajectories.list({ search, flagged: "include", pageSize: 100 })).rows.map((r) => r.id);
    expect(await listed("scanner:captcha")).not.toContain(T[5]);
    expect(await listed("-scanner:captcha")).not.toContain(T[5]);
    const after = await api.scanners.detail({ key: "captcha" });
    expect([after.matchCount, after.matches.some((m) => m.trajectoryId === T[5])]).toEqual([5, false]);
    expect(after.scanner.stale).toBe(1);
  });
});
