/**
 * The staged judge protocols (key points after WebJudge, rubric after CUAVerifierBench) and citations, through
 * Verdict's judge service and a judge batch against the prompt-reading endpoint, on SQLite and PostgreSQL. The
 * expected figures are worked by hand from what each screenshot "shows" (tests/helpers/fake-judge-model.ts).
 *
 * The trajectory: "Find a hotel in Lyon, under $100 and with free parking" (key points: "Find a hotel in Lyon",
 * "under $100", "free parking"), 4 steps, answer "Hotel Rhône, Lyon, $80". Screens: step 1 a search form (no key
 * point: relevance 1), step 2 "Hotel list in Lyon" (key point 1: 2), step 3 "Hotel Rhône Lyon $100 max, free
 * parking" (all three: 4), step 4 "Booking summary" (1).
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { evidenceOfVerdicts, citationTotals } from "../../db/repositories/evaluation/verdict-evidence";
import { findVerdict } from "../../db/repositories/evaluation/verdicts";
import { createJudgeBatch, estimateJudgeBatch, runJudgeBatch } from "../../server/services/evaluation/judge-batches";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { judgeTrajectory, type JudgeDeps } from "../../server/services/evaluation/judge-verdict";
import { criteriaReport } from "../../server/services/evaluation/criteria-report";
import { createStressTest, stressTestReport } from "../../server/services/evaluation/stress-tests";
import { alignmentVersions, createAlignment, createPromptVersion } from "../../server/services/evaluation/alignment-studies";
import { subsetOfSteps } from "../../server/domain/evaluation/prompt-variants";
import { importLabelsCsv } from "../../server/services/annotation/io";
import { createCampaign } from "../../server/services/annotation";
import { callerAs, testUser } from "../helpers/trpc";
import { makeActor } from "../helpers/annotation-fixture";
import { trajectoryEvaluations } from "../../server/services/evaluation/trajectory-evaluations";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { promptReadingResponder } from "../helpers/fake-judge-model";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories, type SeededTrajectory } from "../helpers/judge-fixtures";

const HOTEL = "Find a hotel in Lyon, under $100 and with free parking";

describeEachBackend("key-point and rubric judging with citations", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;
  let deps: JudgeDeps;
  let hotel: SeededTrajectory;
  let library: SeededTrajectory;
  let screens: Record<string, string>;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "judge-protocols-");
    deps = { db: ctx.db, store: ctx.store, env: LOCAL_JUDGE_ENV, retryPolicy: { baseDelayMs: 5, maxDelayMs: 50 } };
    const seeded = await seedTrajectories(ctx, [
      { steps: 4, intent: HOTEL, finalAnswer: "Hotel Rhône, Lyon, $80" },
      { steps: 2, intent: "Find the opening hours of the city library", finalAnswer: "unable to load the page" },
    ]);
    hotel = seeded[0]!;
    library = seeded[1]!;
    const s = (t: SeededTrajectory, i: number) => t.shots[i]!.marked!;
    screens = {
      [s(hotel, 0)]: "Search form",
      [s(hotel, 1)]: "Hotel list in Lyon",
      [s(hotel, 2)]: "Hotel Rhône Lyon $100 max, free parking",
      [s(hotel, 3)]: "Booking summary",
      [s(library, 1)]: "CAPTCHA check before the page loads",
    };
    fake.setResponder(promptReadingResponder({ screens }));
    fake.requests.length = 0;
  });
  afterEach(async () => ctx.cleanup());

  const config = (name: string, promptVersion: string, options = {}) =>
    createJudgeConfig(ctx.db, { name, baseUrl: fake.baseUrl, model: "m", promptVersion, options }, LOCAL_JUDGE_SETTINGS);

  it("key points: scores each screenshot, keeps those at the threshold, grades each key point and cites the kept step", async () => {
    const c = await config("webjudge", "key-points");
    expect(c.protocol).toBe("key-points");
    const out = await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: "full" });
    expect(out.verdict).toBe("success");
    // 1 key-point call + 4 relevance calls (one screenshot each) + 1 outcome call with the one screenshot scored ≥ 3.
    expect(fake.requests.map((r) => r.imageHashes.length)).toEqual([0, 1, 1, 1, 1, 1]);
    expect(fake.requests[5]!.imageHashes).toEqual([hotel.shots[2]!.marked]);
    const v = (await findVerdict(ctx.db, { trajectoryId: hotel.id, evaluatorKey: `judge:${c.id}`, k: "full", promptVersion: "verdict-keypoints-v1" }))!;
    expect(v.stepIndices).toEqual([2]);
    expect((v.details as { relevance: { score: number }[] }).relevance.map((r) => r.score)).toEqual([1, 2, 4, 1]);
    const evidence = (await evidenceOfVerdicts(ctx.db, [v.id])).get(v.id)!;
    expect(evidence.criteria.map((k) => [k.kind, k.text, k.result])).toEqual([
      ["key_point", "Find a hotel in Lyon", "met"],
      ["key_point", "under $100", "met"],
      ["key_point", "free parking", "met"],
    ]);
    expect(evidence.citations.map((x) => [x.stepNumber, x.stepIndex, x.problem])).toEqual([[3, 2, null]]);
  });

  it("key points: a threshold no screenshot reaches leaves the answer alone, which shows only the first key point", async () => {
    const c = await config("webjudge-5", "key-points", { relevanceThreshold: 5 });
    expect((await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: "full" })).verdict).toBe("failure");
    expect(fake.requests[5]!.imageHashes).toEqual([]);
    const v = (await findVerdict(ctx.db, { trajectoryId: hotel.id, evaluatorKey: `judge:${c.id}`, k: "full", promptVersion: "verdict-keypoints-v1" }))!;
    const evidence = (await evidenceOfVerdicts(ctx.db, [v.id])).get(v.id)!;
    expect(evidence.criteria.map((k) => k.result)).toEqual(["met", "not_met", "not_met"]);
    // With threshold 2 step 2 is kept as well: the same success as with 3.
    const two = await config("webjudge-2", "key-points", { relevanceThreshold: 2 });
    fake.requests.length = 0;
    expect((await judgeTrajectory(deps, { configId: two.id, trajectoryId: hotel.id, k: "full" })).verdict).toBe("success");
    expect(fake.requests[5]!.imageHashes).toEqual([hotel.shots[1]!.marked, hotel.shots[2]!.marked]);
  });

  it("rubric: outcome criteria decide, the process is graded apart, and a failure's cause is told apart", async () => {
    const c = await config("rubric", "rubric");
    // k = 1: only "Booking summary" is seen; the answer shows the hotel in Lyon, not the price limit or the parking.
    expect((await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: 1 })).verdict).toBe("failure");
    expect((await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: "full" })).verdict).toBe("success");
    expect((await judgeTrajectory(deps, { configId: c.id, trajectoryId: library.id, k: 1 })).verdict).toBe("failure");
    const read = async (trajectoryId: number, k: string) => {
      const v = (await findVerdict(ctx.db, { trajectoryId, evaluatorKey: `judge:${c.id}`, k, promptVersion: "verdict-rubric-v1" }))!;
      return { v, evidence: (await evidenceOfVerdicts(ctx.db, [v.id])).get(v.id)! };
    };
    const one = await read(hotel.id, "1");
    expect(one.evidence.criteria.map((k) => [k.kind, k.result])).toEqual([
      ["outcome", "met"],
      ["outcome", "not_met"],
      ["outcome", "not_met"],
      ["process", "met"],
    ]);
    expect(one.v.details).toMatchObject({ process: "met", failureCause: "controllable" });
    expect((await read(hotel.id, "full")).v.details).toMatchObject({ process: "met", failureCause: "none" });
    expect((await read(library.id, "1")).v.details).toMatchObject({ failureCause: "uncontrollable" });
    // Two calls per trajectory: the criteria, then the grading.
    expect(fake.requests).toHaveLength(6);
  });

  it("citations that name no step or a box outside the screenshot are kept, flagged and counted per verdict and per judge", async () => {
    fake.setResponder(
      promptReadingResponder({
        screens,
        cite: () => [
          "Evidence: step 9 — the booking",
          "Evidence: step 3 [10, 5, 40, 30] — the price",
          "Evidence: step 3 [0, 0, 100, 30] — too wide",
          "Evidence: the last page",
        ],
      }),
    );
    const c = await config("cited", "key-points");
    await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: "full" });
    const v = (await findVerdict(ctx.db, { trajectoryId: hotel.id, evaluatorKey: `judge:${c.id}`, k: "full", promptVersion: "verdict-keypoints-v1" }))!;
    const cited = (await evidenceOfVerdicts(ctx.db, [v.id])).get(v.id)!.citations;
    expect(cited.map((x) => [x.stepNumber, x.stepIndex, x.box])).toEqual([
      [9, null, null],
      [3, 2, [10, 5, 40, 30]],
      [3, 2, null],
      [null, null, null],
    ]);
    expect(cited[0]!.problem).toBe("step 9 does not exist (the trajectory has 4 steps)");
    expect(cited[2]!.problem).toBe("box [0, 0, 100, 30] lies outside the 48×36 screenshot of step 3");
    expect(cited[3]!.problem).toBe("no step number");
    // The evaluations panel: the key points with their grades, the relevance scores by player position, and the
    // citations with the position of the step each opens (none for the step that does not exist).
    const panel = await trajectoryEvaluations(ctx.db, await makeActor(ctx, "Rhea", "researcher"), hotel.id);
    const shown = panel.hidden ? null : panel.verdicts.find((x) => x.id === v.id)!;
    expect(shown!.criteria.map((k) => k.result)).toEqual(["met", "met", "met"]);
    expect(shown!.relevance!.map((r) => [r.position, r.score])).toEqual([
      [0, 1],
      [1, 2],
      [2, 4],
      [3, 1],
    ]);
    expect(shown!.citations.map((x) => [x.playerPosition, x.box])).toEqual([
      [null, null],
      [2, [10, 5, 40, 30]],
      [2, null],
      [null, null],
    ]);
    expect(shown!.unverifiableCitations).toBe(3);
    expect(await citationTotals(ctx.db, `judge:${c.id}`)).toEqual([
      { evaluatorKey: `judge:${c.id}`, evaluatorName: "cited", k: "full", promptVersion: "verdict-keypoints-v1", verdicts: 1, citations: 4, unverifiable: 3 },
    ]);
    // Judged again, the verdict keeps its id and its evidence is replaced, not added to.
    fake.setResponder(promptReadingResponder({ screens }));
    await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: "full", force: true });
    expect((await evidenceOfVerdicts(ctx.db, [v.id])).get(v.id)!.citations.map((x) => x.stepNumber)).toEqual([3]);
  });

  it("the WebVoyager protocol asks for citations when configured to, and records it in the prompt version", async () => {
    const c = await config("cite-wv", "webvoyager", { askCitations: true });
    await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: 2 });
    expect(fake.requests[0]!.texts[0]).toContain("Evidence: step <number>");
    const v = (await findVerdict(ctx.db, { trajectoryId: hotel.id, evaluatorKey: `judge:${c.id}`, k: "2", promptVersion: "verdict-judge-v1+cite" }))!;
    // The last two steps were sent; step 3 shows the hotel, step 4 nothing of the task: step 3 is cited.
    expect((await evidenceOfVerdicts(ctx.db, [v.id])).get(v.id)!.citations.map((x) => [x.stepNumber, x.problem])).toEqual([[3, null]]);
  });

  it("a batch estimates the staged calls before it runs and stores one verdict per trajectory", async () => {
    const c = await config("batch-kp", "key-points");
    const req = { config: c.id, trajectoryIds: [hotel.id, library.id], kValues: ["full" as const], concurrency: 1 };
    const estimate = await estimateJudgeBatch(ctx.db, req);
    // hotel: 1 + 4 + 1 calls; library: 1 + 2 + 1.
    expect(estimate.calls).toBe(10);
    const { batch } = await createJudgeBatch(ctx.db, req);
    const progress = await runJudgeBatch(deps, batch.id, { pollMs: 10 });
    expect(progress.batch.succeeded).toBe(2);
    expect(fake.requests).toHaveLength(10);
    // Stress variants: a random subset of 1 scores one screenshot (1 + 1 + 1 calls a trajectory); the history removed
    // changes only what the outcome call shows (hotel 6, library 4).
    const variants = await estimateJudgeBatch(ctx.db, { ...req, variants: ["", "subset1-s1", "no-history"] });
    expect(variants.perVariant.map((v) => [v.variant, v.calls, v.existing])).toEqual([
      ["", 0, 2],
      ["subset1-s1", 6, 0],
      ["no-history", 10, 0],
    ]);
  });

  it("scores the rubric's criteria against the people's outcome: the verdict, each kind all met, the process, the disagreements", async () => {
    // People: the hotel was found (success), the library hours were not (failure).
    await importLabelsCsv(ctx.db, await makeActor(ctx, "Rhea", "researcher"), {
      csv: `trajectory_id,annotator,verdict\n${hotel.id},Ann,success\n${library.id},Ann,failure\n`,
      source: "study.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory_id" },
      campaign: { name: "Study", annotatorsPerItem: 1 },
    });
    const c = await config("rubric-k1", "rubric");
    await expect(criteriaReport(ctx.db, { config: c.id, campaign: "Study", k: 1 })).resolves.toMatchObject({ missing: 2 });
    for (const t of [hotel, library]) await judgeTrajectory(deps, { configId: c.id, trajectoryId: t.id, k: 1 });
    const r = await criteriaReport(ctx.db, { config: "rubric-k1", campaign: "Study", k: 1 });
    // Judge: failure on both (k = 1 shows the hotel's booking summary, not its price or parking). Rows people, columns judge.
    expect(r.outcome.table).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(r.outcome.kappa.kappa).toBe(0);
    expect(r.outcome.errors.falseNegative.estimate).toBe(1);
    expect(r.byKind.map((k) => [k.kind, k.items, k.criteria, k.met, k.notMet])).toEqual([
      ["outcome", 2, 4, 1, 3],
      ["process", 2, 2, 2, 0],
    ]);
    // The process passes on both: against people it says success where they said failure (FPR 1).
    expect(r.process!.table).toEqual([
      [1, 0],
      [1, 0],
    ]);
    expect(r.process!.errors.falsePositive.estimate).toBe(1);
    expect(r.disagreements).toEqual([
      {
        trajectoryId: hotel.id,
        human: "success",
        verdict: "failure",
        notMet: [
          { kind: "outcome", text: "under $100", result: "not_met" },
          { kind: "outcome", text: "free parking", result: "not_met" },
        ],
      },
    ]);
    expect(r.citations).toEqual({ verdicts: 2, citations: 2, unverifiable: 0 });
    const wv = await config("plain", "webvoyager");
    await expect(criteriaReport(ctx.db, { config: wv.id, campaign: "Study", k: 1 })).rejects.toThrow(/grades no criteria/);
  });

  it("the judge page's criteria: each criterion of each task against people, a default campaign, and closed to the blind", async () => {
    const rhea = await testUser(ctx, "researcher", "Rhea");
    const api = await callerAs(ctx, rhea);
    const c = await config("rubric-page", "rubric");
    const key = `judge:${c.id}`;
    // No campaign labels anything the judge graded yet: the page's empty state.
    expect(await api.analytics.judgeCriteria({ evaluatorKey: key, k: "1" })).toEqual({ report: null, protocol: "rubric" });
    await importLabelsCsv(ctx.db, await makeActor(ctx, "Ray", "researcher"), {
      csv: `trajectory_id,annotator,verdict\n${hotel.id},Ann,success\n${library.id},Ann,failure\n`,
      source: "study.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory_id" },
      campaign: { name: "Study", annotatorsPerItem: 1 },
    });
    for (const t of [hotel, library]) await judgeTrajectory(deps, { configId: c.id, trajectoryId: t.id, k: 1 });
    const page = await api.analytics.judgeCriteria({ evaluatorKey: key, k: "1" });
    const r = page!.report!;
    expect(r.campaign.name).toBe("Study");
    // Hotel (people: success): "Find a hotel in Lyon" met, "under $100" and "free parking" not met (k = 1 shows only the
    // booking summary), the process met. Library (people: failure): its one outcome criterion not met, the process met.
    // A criterion agrees when met where people said success or not met where they said failure; least agreeing first.
    const processText = "The agent does not repeat an action without progress";
    const hotelTask = r.byCriterion.find((x) => x.text === "free parking")!.task;
    expect(
      r.byCriterion.map((x) => [x.task === hotelTask ? "hotel" : "library", x.kind, x.text, x.met, x.notMetButSuccess, x.metButFailure, x.agreement.successes]),
    ).toEqual([
      ["hotel", "outcome", "free parking", 0, 1, 0, 0],
      ["hotel", "outcome", "under $100", 0, 1, 0, 0],
      ["library", "process", processText, 1, 0, 1, 0],
      ["hotel", "outcome", "Find a hotel in Lyon", 1, 0, 0, 1],
      ["hotel", "process", processText, 1, 0, 0, 1],
      ["library", "outcome", "Find the opening hours of the city library", 0, 0, 0, 1],
    ]);
    // Wilson 95 % for 0 of 1: [0, 0.793]; for 1 of 1: [0.207, 1].
    expect(r.byCriterion[0]!.agreement.high).toBeCloseTo(0.793, 3);
    expect(r.byCriterion[3]!.agreement.low).toBeCloseTo(0.207, 3);
    expect(r.outcome.table).toEqual([
      [0, 1],
      [0, 1],
    ]);
    // Another judge's page has no criteria section; an unknown key neither.
    const wv = await config("plain-page", "webvoyager");
    expect(await api.analytics.judgeCriteria({ evaluatorKey: `judge:${wv.id}`, k: "1" })).toBeNull();
    expect(await api.analytics.judgeCriteria({ evaluatorKey: "rules:vwa", k: "1" })).toBeNull();
    // Annotators never see it, nor a researcher still labelling blind an item of a campaign.
    await expect(
      (await callerAs(ctx, await testUser(ctx, "annotator", "Ann Otator"))).analytics.judgeCriteria({ evaluatorKey: key, k: "1" }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const blind = await testUser(ctx, "researcher", "Blind Researcher");
    await createCampaign(
      ctx.db,
      { userId: rhea.userId, name: "Rhea", role: "researcher" },
      { name: "Blind pass", trajectoryIds: [hotel.id], annotatorsPerItem: 1, annotatorIds: [blind.userId] },
    );
    await expect((await callerAs(ctx, blind)).analytics.judgeCriteria({ evaluatorKey: key, k: "1" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("the judge page's criteria find the verdicts of a judge asked without the final answer, stored under …+no-answer", async () => {
    const api = await callerAs(ctx, await testUser(ctx, "researcher", "Rhea"));
    const c = await config("rubric-no-answer", "rubric", { withoutFinalAnswer: true });
    await labelStudy();
    for (const t of [hotel, library]) await judgeTrajectory(deps, { configId: c.id, trajectoryId: t.id, k: 1 });
    const stored = await findVerdict(ctx.db, { trajectoryId: hotel.id, evaluatorKey: `judge:${c.id}`, k: "1", promptVersion: "verdict-rubric-v1+no-answer" });
    expect(stored).toBeTruthy();
    const r = (await api.analytics.judgeCriteria({ evaluatorKey: `judge:${c.id}`, k: "1" }))!.report!;
    expect(r.promptVersion).toBe("verdict-rubric-v1+no-answer");
    expect(r.campaign.name).toBe("Study");
    // Both labelled trajectories have their verdict and criteria: none missing, the hotel's three outcome criteria and
    // the library's one, and each task's process criterion.
    expect(r.missing).toBe(0);
    expect(r.byCriterion).toHaveLength(6);
  });

  const labelStudy = async () =>
    importLabelsCsv(ctx.db, await makeActor(ctx, "Ray", "researcher"), {
      csv: `trajectory_id,annotator,verdict\n${hotel.id},Ann,success\n${library.id},Ann,failure\n`,
      source: "study.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory_id" },
      campaign: { name: "Study", annotatorsPerItem: 1 },
    });
  const userTexts = (r: (typeof fake.requests)[number]) => r.texts.slice(1).join("\n");

  it("stress-tests a rubric judge: every perturbation applies, the subset and the removed history reach the outcome call", async () => {
    await labelStudy();
    const c = await config("rubric-stress", "rubric");
    const { stressTest, plan, batch } = await createStressTest(ctx.db, { config: c.id, campaign: "Study", k: "full", seed: 1 });
    // The rubric always shows the action history, so "history removed" applies too: 5 ways × 2 items × 2 calls.
    expect(plan.skipped).toEqual([]);
    expect(plan.estimate.calls).toBe(20);
    await runJudgeBatch(deps, batch.id, { pollMs: 10 });
    expect(fake.requests).toHaveLength(20);
    // Outcome calls (the second of each pair) sent with the history show the agent's actions; the one without, none.
    const outcomes = fake.requests.filter((r) => r.texts[0]!.includes("against a rubric"));
    expect(outcomes).toHaveLength(10);
    expect(outcomes.filter((r) => /Click \[1\]/.test(userTexts(r)))).toHaveLength(8);
    // The subset of 2 keeps the hotel's step 3 (its price and parking) or not: the hotel's verdict follows.
    const kept = subsetOfSteps([0, 1, 2, 3], { kind: "subset", k: 2, seed: 1 }, hotel.id);
    const report = await stressTestReport(ctx.db, stressTest.id);
    // Unperturbed: the hotel succeeds (k = full shows step 3), the library fails: κ 1 against people.
    expect(report.base.measures.table).toEqual([
      [1, 0],
      [0, 1],
    ]);
    const flips = Object.fromEntries(report.perturbations.map((p) => [p.perturbation, p.flipped.map((f) => f.trajectoryId)]));
    expect(flips).toEqual({
      "shuffle-s1": [],
      "subset2-s1": kept.includes(2) ? [] : [hotel.id],
      "no-answer": [],
      "no-history": [],
    });
    const shuffled = (await findVerdict(ctx.db, {
      trajectoryId: hotel.id,
      evaluatorKey: `judge:${c.id}`,
      k: "full",
      promptVersion: "verdict-rubric-v1+shuffle-s1",
    }))!;
    // The shuffle reorders the four screenshots; each keeps its caption.
    expect([...shuffled.stepIndices!].sort()).toEqual([0, 1, 2, 3]);
  });

  it("an alignment version of a rubric judge: its rubric goes into the outcome call and changes the verdict", async () => {
    await labelStudy();
    const c = await config("rubric-aligned", "rubric");
    const { alignment } = await createAlignment(ctx.db, { name: "staged study", config: c.id, campaign: "Study", k: "full", heldOutShare: 0.5, seed: 1 });
    const v2 = await createPromptVersion(ctx.db, alignment.id, {
      rubric: 'Answers that name "Rhône" are a FAILURE: that hotel has no free parking.',
      rubricSource: "researcher",
    });
    const one = await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: "full" });
    const two = await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: "full", variant: `pv${v2.id}` });
    // v1: every outcome criterion shown at k = full, success; v2's rule names the hotel of the answer: failure.
    expect([one.verdict, two.verdict]).toEqual(["success", "failure"]);
    // The rule is in the outcome call's system prompt only (4 calls: criteria and outcome, twice).
    expect(fake.requests).toHaveLength(4);
    expect(fake.requests.map((r) => r.texts[0]!.includes('"Rhône"'))).toEqual([false, false, false, true]);
    const view = await alignmentVersions(ctx.db, alignment.id);
    expect(view.versions.map((v) => v.version.number)).toEqual([1, 2]);
    expect(view.versions[1]!.promptVersion).toBe(`verdict-rubric-v1+pv${v2.id}`);
  });

  it("samples a key-point judge: the whole protocol again per sample, the majority kept with its criteria", async () => {
    const c = await createJudgeConfig(
      ctx.db,
      { name: "kp-sampled", baseUrl: fake.baseUrl, model: "m", promptVersion: "key-points", temperature: 0.7 },
      LOCAL_JUDGE_SETTINGS,
    );
    const req = { config: c.id, trajectoryIds: [hotel.id], kValues: ["full" as const], concurrency: 1, samples: 3 };
    // 3 × (1 + 4 + 1) calls.
    expect((await estimateJudgeBatch(ctx.db, req)).calls).toBe(18);
    await judgeTrajectory(deps, { configId: c.id, trajectoryId: hotel.id, k: "full", samples: 3 });
    expect(fake.requests).toHaveLength(18);
    const v = (await findVerdict(ctx.db, { trajectoryId: hotel.id, evaluatorKey: `judge:${c.id}`, k: "full", promptVersion: "verdict-keypoints-v1" }))!;
    expect([v.verdict, v.sampleCount, v.sampleSuccesses, v.sampleFailures]).toEqual(["success", 3, 3, 0]);
    expect((await evidenceOfVerdicts(ctx.db, [v.id])).get(v.id)!.criteria).toHaveLength(3);
  });

  it("stress-tests the campaign's items a list filter selects, through the API", async () => {
    await labelStudy();
    const c = await config("rubric-selected", "rubric");
    const api = await callerAs(ctx, await testUser(ctx, "researcher", "Rhea"));
    // The list filter "people said success" selects the hotel only: 5 ways × 1 item × 2 calls; the library is outside.
    const plan = await api.judge.stress.estimate({
      config: c.id,
      campaign: "Study",
      k: "full",
      filter: { human: "success" },
      selectionLabel: "people: success",
    });
    expect([plan.trajectoryIds, plan.outsideSelection, plan.estimate.calls]).toEqual([[hotel.id], 1, 10]);
    const started = await api.judge.stress.start({
      config: c.id,
      campaign: "Study",
      k: "full",
      filter: { human: "success" },
      selectionLabel: "people: success",
    });
    const report = await api.judge.stress.report({ id: started.stressTestId });
    expect(report.stressTest.trajectoryIds).toEqual([hotel.id]);
    expect((await api.judge.batches.progress({ id: started.batchId })).batch.selectionLabel).toBe("stress test on campaign Study, people: success");
    // A filter that selects none of the campaign's labelled items is refused with the reason.
    await expect(api.judge.stress.estimate({ config: c.id, campaign: "Study", k: "full", filter: { q: "no such words anywhere" } })).rejects.toThrow(
      /no item with a consolidated success or failure among the selected trajectories/,
    );
  });
});
