import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listVerdicts, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import type { BundleTrajectory } from "../../server/domain/imports/bundle";
import { HEURISTIC_EVALUATORS } from "../../server/domain/evaluation/heuristics/index";
import type { ParsedAction, SomElement } from "../../server/domain/types";
import { analyticsOverview } from "../../server/services/analytics/overview";
import { judgeAgreementList } from "../../server/services/analytics/evaluator-agreement";
import { BundleWriter } from "../../server/services/bundle-io";
import { runImport } from "../../server/services/imports/ingest";
import { runCli } from "../../server/cli/main";
import { detectLoops } from "../../server/domain/player/loops";
import { getTrajectoryForPlayer } from "../../server/services/trajectory-views";
import { fromJsonText } from "../../server/domain/player/paging";
import type { CliIO } from "../../server/cli/types";
import { evaluateHeuristicVerdicts } from "../../server/services/evaluation/heuristics";
import { seedAnalyticsFixture } from "../helpers/analytics-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

describeEachBackend("heuristics", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-heuristics-");
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const W = 320;
  const H = 200;

  /** A page-like screenshot: horizontal bands whose brightness follows `pattern`; `dot` adds a small mark (a caret). */
  async function page(pattern: "light-to-dark" | "dark-to-light", dot: number | null = null): Promise<Buffer> {
    const raw = Buffer.alloc(W * H * 3);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const t = Math.floor((x / W) * 200);
        const v = (pattern === "light-to-dark" ? 230 - t : 30 + t) + (y % 40 < 20 ? 10 : 0);
        raw.fill(v, (y * W + x) * 3, (y * W + x) * 3 + 3);
      }
    }
    if (dot !== null) for (let y = 50; y < 53; y++) for (let x = dot; x < dot + 3; x++) raw.fill(0, (y * W + x) * 3, (y * W + x) * 3 + 3);
    return sharp(raw, { raw: { width: W, height: H, channels: 3 } })
      .png()
      .toBuffer();
  }

  interface StepSpec {
    action: ParsedAction;
    url?: string;
    elements?: SomElement[] | null;
    shot: Buffer;
  }

  const box = (label: string, text: string, x: number): SomElement => ({ label, bbox: [x, 10, 60, 30], text, tag: "button" });
  const menu = [box("1", "Kettles", 0), box("2", "Blue kettle £29.99", 80), box("3", "Add to basket", 160)];

  async function seed(specs: { name: string; intent: string; finalAnswer: string | null; outcome: BundleTrajectory["outcome"]; steps: StepSpec[] }[]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-heuristics-bundle-"));
    try {
      const writer = new BundleWriter(dir);
      const trajectories: BundleTrajectory[] = [];
      for (const spec of specs) {
        const steps: BundleTrajectory["steps"] = [];
        for (const [i, s] of spec.steps.entries()) {
          steps.push({
            index: i,
            screenshot: await writer.addImage(s.shot),
            rawScreenshot: null,
            marksBurnedIn: false,
            url: s.url ?? "https://shop.test/kettles",
            thought: null,
            actionRaw: JSON.stringify(s.action),
            action: s.action,
            elements: s.elements === undefined ? menu : s.elements,
            error: null,
            durationMs: null,
          });
        }
        trajectories.push({
          task: {
            taskSet: { name: "Heuristic tests", benchmark: "adhoc", description: null },
            externalId: spec.name,
            site: "shop",
            intent: spec.intent,
            startUrl: null,
            inputImages: [],
            referenceAnswers: [],
            evaluatorConfig: null,
            difficulty: null,
            tags: [],
            extra: null,
          },
          run: { runKey: "heuristic-tests", name: "Heuristic test run", agentName: "agent", model: "m", sourceSystem: "verdict-tests", config: null },
          attempt: 0,
          finalAnswer: spec.finalAnswer,
          outcome: spec.outcome,
          outcomeDetail: null,
          steps,
          verdicts: [],
        });
      }
      await writer.finish(trajectories, "heuristic tests");
      const report = await runImport(ctx, { path: dir, format: "native" });
      return Object.fromEntries(report.trajectories.map((t, i) => [specs[i]!.name, t.id]));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  const click = (target: string, coords?: [number, number]): ParsedAction => ({ type: "click", target, ...(coords ? { coords } : {}) });
  const answer = (value: string): ParsedAction => ({ type: "answer", value });
  const intent = "How much is the blue kettle?";

  describe("heuristic verdicts on stored trajectories", () => {
    it("stores one verdict per heuristic with the step it fires on, skips stored and running ones, recomputes when forced", async () => {
      const A = await page("light-to-dark");
      const B = await page("dark-to-light");
      const ids = await seed([
        // Clean: different screens, targets on their elements, answer seen on the page.
        {
          name: "clean",
          intent,
          finalAnswer: "£29.99",
          outcome: "answered",
          steps: [
            { action: click("1", [20, 20]), shot: A },
            { action: click("2"), shot: B },
            { action: answer("£29.99"), shot: await page("light-to-dark", 100) },
          ],
        },
        // Two clicks in a row leave the screen as it was: only a caret moved, so the bytes differ but the dHash does not.
        {
          name: "stuck",
          intent,
          finalAnswer: "£29.99",
          outcome: "answered",
          steps: [
            { action: click("1"), shot: A },
            { action: click("2"), shot: await page("light-to-dark", 10) },
            { action: click("3"), shot: await page("light-to-dark", 200) },
            { action: answer("£29.99"), shot: B },
          ],
        },
        // Clicks a label the page does not have, and answers with a price it never saw.
        {
          name: "ungrounded",
          intent,
          finalAnswer: "It is $45 at Walmart",
          outcome: "answered",
          steps: [
            { action: click("1"), shot: A },
            { action: click("7"), shot: B },
            { action: answer("It is $45 at Walmart"), shot: A },
          ],
        },
        {
          name: "limit",
          intent,
          finalAnswer: null,
          outcome: "step_limit",
          steps: [
            { action: click("1"), shot: A },
            { action: click("2"), shot: B },
          ],
        },
        { name: "running", intent, finalAnswer: null, outcome: "running", steps: [{ action: click("1"), shot: A }] },
      ]);
      const all = Object.values(ids);
      const deps = { db: ctx.db, store: ctx.store };

      const report = await evaluateHeuristicVerdicts(deps, { trajectoryIds: all });
      expect(report).toMatchObject({ considered: 5, evaluated: 4, skippedExisting: 0, skippedRunning: 1, missing: 0, unreadableScreenshots: 0 });
      // A, B and three variants of A with a caret: each distinct file is hashed once.
      expect(report.screenshotsHashed).toBe(5);
      expect(report.byEvaluator).toEqual({
        "heuristic:loop": { success: 3, failure: 1, not_evaluable: 0 },
        "heuristic:grounding": { success: 3, failure: 1, not_evaluable: 0 },
        "heuristic:answer-grounded": { success: 2, failure: 1, not_evaluable: 1 },
        "heuristic:no-answer": { success: 3, failure: 1, not_evaluable: 0 },
      });

      const verdict = async (name: string, key: string) => (await listVerdicts(ctx.db, { trajectoryId: ids[name]!, evaluatorKey: key }))[0]!;
      expect(await verdict("stuck", "heuristic:loop")).toMatchObject({
        kind: "rule",
        origin: "verdict",
        verdict: "failure",
        score: 0,
        k: "",
        promptVersion: "1",
        evaluatorName: "Heuristic: loop",
      });
      expect((await verdict("stuck", "heuristic:loop")).details).toMatchObject({ step: 2, signal: "same-screen" });
      expect((await verdict("stuck", "heuristic:loop")).rationale).toBe("Loop at step 3: the screen stayed the same after 2 actions in a row.");
      expect(await verdict("ungrounded", "heuristic:grounding")).toMatchObject({
        verdict: "failure",
        details: { step: 1, flag: "missing-label", target: "7" },
      });
      expect(await verdict("ungrounded", "heuristic:answer-grounded")).toMatchObject({
        verdict: "failure",
        details: { step: 2, keyTokens: ["walmart", "45"] },
      });
      expect(await verdict("limit", "heuristic:no-answer")).toMatchObject({ verdict: "failure", details: { step: 1, outcome: "step_limit" } });
      expect(await verdict("limit", "heuristic:answer-grounded")).toMatchObject({ verdict: "not_evaluable", details: { step: null } });
      expect(await verdict("clean", "heuristic:answer-grounded")).toMatchObject({ verdict: "success", score: 1 });
      expect(await listVerdicts(ctx.db, { trajectoryId: ids.running! })).toEqual([]);

      // The player gets the stored hashes, so its same-screen markers sit where the loop verdict says.
      const shown = fromJsonText((await getTrajectoryForPlayer(ctx.db, ids.stuck!)).window.steps);
      expect(shown.every((s) => s.screenshot?.dhash?.length === 64)).toBe(true);
      const marks = detectLoops(
        shown.map((s) => ({
          action: s.action,
          url: s.url,
          screenshotHash: s.screenshot?.hash ?? null,
          screenshotDhash: (s.rawScreenshot ?? s.screenshot)?.dhash ?? null,
        })),
      );
      expect(marks.map((m) => m.sameScreen)).toEqual([false, true, true, false]);

      const again = await evaluateHeuristicVerdicts(deps, { trajectoryIds: all });
      expect(again).toMatchObject({ evaluated: 0, skippedExisting: 4, skippedRunning: 1, screenshotsHashed: 0 });

      // A stored verdict that no longer matches (say, from an older build) is replaced in place when forced.
      const stored = await verdict("stuck", "heuristic:loop");
      await upsertVerdict(ctx.db, {
        trajectoryId: ids.stuck!,
        evaluatorKey: "heuristic:loop",
        evaluatorName: "old",
        kind: "rule",
        origin: "verdict",
        promptVersion: "1",
        verdict: "success",
        rationale: "stale",
      });
      const forced = await evaluateHeuristicVerdicts(deps, { trajectoryIds: [ids.stuck!], force: true });
      // The screenshots' hashes were stored by the first run: nothing is decoded again.
      expect(forced).toMatchObject({ evaluated: 1, skippedExisting: 0, screenshotsHashed: 0 });
      expect(await listVerdicts(ctx.db, { trajectoryId: ids.stuck! })).toHaveLength(HEURISTIC_EVALUATORS.length);
      expect(await verdict("stuck", "heuristic:loop")).toMatchObject({
        id: stored.id,
        verdict: "failure",
        evaluatorName: "Heuristic: loop",
        rationale: stored.rationale,
        details: stored.details,
      });

      const columns = (await analyticsOverview(ctx.db, { scope: {}, unparseable: "exclude", difficulty: "overall" })).columns;
      expect(columns.filter((c) => c.info?.identity.key.startsWith("heuristic:")).map((c) => [c.label, c.kind])).toEqual([
        ["Heuristic: answer not grounded", "rule"],
        ["Heuristic: grounding mismatch", "rule"],
        ["Heuristic: loop", "rule"],
        ["Heuristic: no answer / step limit", "rule"],
      ]);
    });

    it("is compared with the human labels like a judge: κ of the loop heuristic on the analytics fixture", async () => {
      const f = await seedAnalyticsFixture(ctx.db);
      // Every fixture step scrolls down: the loop heuristic fires on trajectories of five steps or more.
      await evaluateHeuristicVerdicts({ db: ctx.db, store: ctx.store }, { trajectoryIds: Object.values(f.ids) });
      const list = await judgeAgreementList(ctx.db, { scope: {}, unparseable: "exclude" });
      const loop = list.judges.find((j) => j.info.identity.key === "heuristic:loop")!;
      // Human S/F pairs: T1, T7 (short, success) agree on success; T4, T5 are long successes (false failures);
      // the six human failures are all long. P_o = 0.8, P_e = 0.2·0.4 + 0.8·0.6 = 0.56, κ = 0.24 / 0.44.
      expect(loop.stats.n).toBe(10);
      expect(loop.stats.falseFailure).toBe(2);
      expect(loop.stats.falseSuccess).toBe(0);
      expect(loop.stats.kappa.kappa).toBeCloseTo(6 / 11, 10);
      // Without element lists or page text, grounding and answer checks say so instead of guessing.
      const grounding = list.judges.find((j) => j.info.identity.key === "heuristic:grounding")!;
      expect(grounding.stats.n).toBe(0);
      expect(grounding.stats.notEvaluable).toBe(10);
    });

    it("runs from the CLI: --json prints one report, a second run keeps what is stored, a bad selection is a usage error", async () => {
      const ids = await seed([
        { name: "limit", intent, finalAnswer: null, outcome: "step_limit", steps: [{ action: click("1"), shot: await page("light-to-dark") }] },
      ]);
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIO = {
        stdout: (t) => void out.push(t),
        stderr: (t) => void err.push(t),
        interactive: false,
        env: {
          ...process.env,
          VERDICT_DATA_DIR: ctx.dir,
          ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : { VERDICT_DB: path.join(ctx.dir, "verdict.db") }),
        },
      };
      expect(await runCli(["heuristics", "--ids", String(ids.limit), "--json"], io)).toBe(0);
      expect(out).toHaveLength(1);
      expect(JSON.parse(out[0]!)).toMatchObject({ evaluated: 1, byEvaluator: { "heuristic:no-answer": { failure: 1 } } });
      expect(await runCli(["heuristics", "--all"], io)).toBe(0);
      expect(err.join("")).toMatch(/0 trajectories evaluated .*1 already had every verdict/);
      expect(await runCli(["heuristics", "--run", "x"], io)).toBe(2);
      expect(err.join("")).toMatch(/--run takes a run id/);
    });
  });
});
