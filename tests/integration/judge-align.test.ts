/**
 * The alignment loop end to end from the command line, on both engines, against the tests' judge endpoint that
 * decides from the prompt (tests/helpers/fake-judge-model.ts): with the answer shown it says SUCCESS for any answer
 * that does not give up, follows a rule written into its criteria (`… "approximately" … FAILURE`), and copies the
 * verdict of an <example> whose task shares at least half its content words with the case.
 *
 * Ten labelled trajectories in five strata (human label × site) of two "twins" that behave alike, so that whichever
 * twin the seeded split holds out, the held-out part is one of each:
 *   A  museum   people F   answer "approximately …"      judge S (a guess taken for an answer)
 *   B  maps     people S   a plain answer                judge S
 *   C  wiki     people F   "cannot find it"              judge F
 *   D  library  people S   no answer (the page shows the subscription)   judge F
 *   E  shoes    people S   a plain answer; the twins' tasks are near-duplicates (shop A / shop B)
 * Held out, v1 (the protocol): ss B E, sf D, fs A, ff C → p_o 3/5, p_e (3·3 + 2·2)/25 = 13/25, κ = 1/6.
 * v2, a rubric with the "approximately" rule: A → F (now right) → ss 2, sf 1, ff 2: p_e 12/25, κ = 8/13.
 * v3, v2 plus D's calibration twin as an example (people: success): D → S (now right) → κ = 1.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { importLabelsCsv } from "../../server/services/annotation/io";
import { runJudgeBatch } from "../../server/services/evaluation/judge-batches";
import { callerAs, testUser } from "../helpers/trpc";
import { closeSharedDatabases } from "../../server/context";
import { createJudgeConfig } from "../../server/services/evaluation/judge-configs";
import { makeActor } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { cliRunner } from "../helpers/cli";
import type { TestContext } from "../helpers/context";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { promptReadingResponder } from "../helpers/fake-judge-model";
import { LOCAL_JUDGE_ENV, LOCAL_JUDGE_SETTINGS, seedTrajectories, type SeededTrajectory } from "../helpers/judge-fixtures";

const TWINS = [
  {
    stratum: "A",
    site: "museum",
    human: "failure",
    items: [
      ["Find the opening hours of the modern art museum", "approximately 9 to 5"],
      ["Find the entrance fee of the history museum", "approximately $12"],
    ],
  },
  {
    stratum: "B",
    site: "maps",
    human: "success",
    items: [
      ["Find the distance from Lyon to Paris by road", "465 km"],
      ["Find the driving time from Bern to Basel", "1 hour"],
    ],
  },
  {
    stratum: "C",
    site: "wiki",
    human: "failure",
    items: [
      ["Find the birth year of the painter Artemisia Gentileschi", "cannot find it"],
      ["Find who designed the Sydney Opera House", "unable to tell"],
    ],
  },
  {
    stratum: "D",
    site: "library",
    human: "success",
    items: [
      ["Subscribe to the weekly newsletter of the city library", null],
      ["Get the library's weekly newsletter by email", null],
    ],
  },
  {
    stratum: "E",
    site: "shoes",
    human: "success",
    items: [
      ["Find the cheapest red shoes on shop A", "$30"],
      ["Find the cheapest red shoes on shop B", "$32"],
    ],
  },
] as const;
const RUBRIC = [
  "Every part of the task counts: conditions such as a price, a date or a place must all hold.",
  'Answers that say "approximately" are a FAILURE: the task asks for the exact value.',
  "Giving up is a failure.",
].join("\n");

const cli = cliRunner();

describeEachBackend("the alignment loop", (backend) => {
  let ctx: TestContext;
  let fake: FakeOpenAI;
  let seeded: SeededTrajectory[];
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ responder: promptReadingResponder() });
  });
  afterAll(async () => fake.close());
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-judge-align-");
    seeded = await seedTrajectories(
      ctx,
      TWINS.flatMap((t) => t.items.map(([intent, finalAnswer]) => ({ steps: 2, intent, finalAnswer, site: t.site }))),
    );
    fake.requests.length = 0;
    const researcher = await makeActor(ctx, "Rhea", "researcher");
    const humans = TWINS.flatMap((t) => t.items.map(() => t.human));
    const notes = TWINS.flatMap((t) => t.items.map(() => (t.stratum === "D" ? "the confirmation page shows the subscription" : "")));
    await importLabelsCsv(ctx.db, researcher, {
      csv: ["trajectory_id,annotator,verdict,note", ...seeded.map((t, i) => `${t.id},Ann,${humans[i]},${notes[i]}`)].join("\n") + "\n",
      source: "study.csv",
      mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory_id", note: "note" },
      campaign: { name: "Study", annotatorsPerItem: 1 },
    });
    await createJudgeConfig(ctx.db, { name: "judge", baseUrl: fake.baseUrl, model: "m" }, LOCAL_JUDGE_SETTINGS);
    env = {
      ...process.env,
      VERDICT_DATA_DIR: ctx.dir,
      ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : { VERDICT_DB: ctx.config.dbPath }),
      ...LOCAL_JUDGE_ENV,
    };
  });
  afterEach(async () => {
    await closeSharedDatabases();
    await ctx.cleanup();
  });

  const json = async (args: string[]) => {
    const r = await cli(["judge-align", ...args, "--json"], env);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };

  it("splits, learns from calibration disagreements, refuses leakage, and measures each version on the held-out part", async () => {
    const study = await json(["create", "--name", "S1", "--config", "judge", "--campaign", "Study", "--k", "1", "--seed", "3"]);
    expect(study.calibrationIds).toHaveLength(5);
    expect(study.heldOutIds).toHaveLength(5);
    expect(study.strata).toHaveLength(5);
    expect(study.strata.every((s: { items: number; calibration: number; heldOut: number }) => s.items === 2 && s.calibration === 1 && s.heldOut === 1)).toBe(
      true,
    );
    const ids = seeded.map((t) => t.id);
    const twin = (stratum: string, part: "calibration" | "held-out") => {
      const pair = ids.slice(TWINS.findIndex((t) => t.stratum === stratum) * 2).slice(0, 2);
      return pair.find((id) => (part === "held-out" ? study.heldOutIds : study.calibrationIds).includes(id))!;
    };

    // Version 1 is asked about every item (10 calls); nothing is sent by the dry run.
    expect((await json(["run", "S1", "--dry-run"])).estimate).toMatchObject({ trajectories: 10, calls: 10 });
    expect(fake.requests).toHaveLength(0);
    expect(await json(["run", "S1"])).toMatchObject({ status: "succeeded" });
    expect(fake.requests).toHaveLength(10);

    const d = await json(["disagreements", "S1"]);
    expect(d.disagreements.map((x: { trajectoryId: number; judge: string; human: string }) => [x.trajectoryId, x.judge, x.human]).sort()).toEqual(
      [
        [twin("A", "calibration"), "success", "failure"],
        [twin("D", "calibration"), "failure", "success"],
      ].sort(),
    );
    expect(d.disagreements.find((x: { trajectoryId: number }) => x.trajectoryId === twin("D", "calibration")).notes).toEqual([
      "the confirmation page shows the subscription",
    ]);

    // Leakage: E's calibration twin is a near-duplicate of its held-out twin; a held-out item is refused outright.
    const leak = await cli(["judge-align", "version", "S1", "--examples", `${twin("B", "calibration")},${twin("E", "calibration")}`], env);
    expect(leak.code).toBe(1);
    expect(leak.stderr).toMatch(
      new RegExp(
        `leakage: example trajectory ${twin("E", "calibration")} \\(task "[^"]+"\\): its intent is a near-duplicate \\(similarity 0\\.9\\d ≥ 0\\.8\\) of held-out task "[^"]+" \\(trajectory ${twin("E", "held-out")}\\): "Find the cheapest red shoes on shop [AB]"`,
      ),
    );
    expect(leak.stderr).not.toContain(`example trajectory ${twin("B", "calibration")}`);
    const held = await cli(["judge-align", "version", "S1", "--examples", String(twin("C", "held-out"))], env);
    expect(held.stderr).toContain(`example trajectory ${twin("C", "held-out")} (task`);
    expect(held.stderr).toContain("is itself in the held-out part");

    // v2: the researcher's rubric. Runs on the held-out part only.
    const rubricFile = path.join(ctx.dir, "rubric.txt");
    fs.writeFileSync(rubricFile, RUBRIC);
    expect(await json(["version", "S1", "--rubric-file", rubricFile, "--note", "exact values"])).toMatchObject({
      number: 2,
      rubricSource: "researcher",
      examples: [],
    });
    expect((await json(["run", "S1", "--version", "2", "--dry-run"])).estimate).toMatchObject({ trajectories: 5, calls: 5 });
    await json(["run", "S1", "--version", "2"]);
    // v3: v2's rubric plus D's calibration twin as an example.
    expect(await json(["version", "S1", "--examples", String(twin("D", "calibration"))])).toMatchObject({
      number: 3,
      rubricSource: "researcher",
      examples: [{ trajectoryId: twin("D", "calibration"), humanVerdict: "success", judgeVerdict: "failure" }],
    });
    await json(["run", "S1", "--version", "3"]);
    expect(fake.requests).toHaveLength(20);

    const view = await json(["versions", "S1"]);
    const [v1, v2, v3] = view.versions;
    expect(view.heldOut).toBe(5);
    expect(v1.measures.table).toEqual([
      [2, 1],
      [1, 1],
    ]);
    expect(v1.measures.kappa.kappa).toBeCloseTo(1 / 6, 12);
    expect(v2.measures.kappa.kappa).toBeCloseTo(8 / 13, 12);
    expect(v3.measures.kappa.kappa).toBeCloseTo(1, 12);
    expect(v1.measures.errors.falsePositive).toMatchObject({ errors: 1, of: 2 });
    expect(v2.measures.errors.falsePositive).toMatchObject({ errors: 0, of: 2 });
    expect(v2.comparedWithParent).toMatchObject({
      parentNumber: 1,
      nowRight: 1,
      nowWrong: 0,
      flipped: [{ trajectoryId: twin("A", "held-out"), before: "success", after: "failure", direction: "now right" }],
    });
    expect(v3.comparedWithParent).toMatchObject({
      parentNumber: 2,
      flipped: [{ trajectoryId: twin("D", "held-out"), before: "failure", after: "success", direction: "now right" }],
    });
    expect(v3.comparedWithParent.kappaChange.estimate).toBeCloseTo(1 - 8 / 13, 12);
    // The diffs: v2 swaps the protocol's criteria for the rubric, v3 adds the example and nothing else.
    const changed = (diff: { op: string; text: string }[]) => diff.filter((l) => l.op !== "same");
    expect(changed(v2.diff)).toContainEqual({ op: "added", text: '- Answers that say "approximately" are a FAILURE: the task asks for the exact value.' });
    expect(changed(v2.diff)).toContainEqual({
      op: "removed",
      text: "- The screenshots are your evidence. When the agent's answer and the screenshots disagree, believe the screenshots.",
    });
    expect(changed(v3.diff).every((l: { op: string }) => l.op === "added")).toBe(true);
    const exampleTask = twin("D", "calibration") === ids[6] ? TWINS[3].items[0][0] : TWINS[3].items[1][0];
    expect(changed(v3.diff)).toContainEqual({ op: "added", text: `Task: ${exampleTask}` });
    expect(changed(v3.diff)).toContainEqual({ op: "added", text: "Why: the confirmation page shows the subscription" });

    const text = await cli(["judge-align", "versions", "S1", "--diff"], env);
    expect(text.stdout).toMatch(/v2: rubric \(researcher\), 0 example\(s\) — exact values\n {4}κ 0\.615/);
    expect(text.stdout).toMatch(/against v1: κ change \+0\.449 \(no interval \(n = 5\)\); 1 of 5 flipped \(1 now right, 0 now wrong\)/);
    expect(text.stdout).toContain(`flipped: trajectory ${twin("D", "held-out")} (task `);
    expect(text.stdout).toContain("+ <example>");

    // An action that is not one (a name every object answers to included) is refused with usage, never run.
    for (const action of ["toString", "constructor", "renumber"]) {
      const refused = await cli(["judge-align", action, "S1"], env);
      expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining(`unknown action "${action}"`)]);
    }
  });

  it("asks the judge model for criteria from the calibration disagreements only, and runs them as a version", async () => {
    const study = await json(["create", "--name", "S2", "--config", "judge", "--campaign", "Study", "--k", "1", "--seed", "5"]);
    await json(["run", "S2"]);
    // The model proposes a rule for each giving-up or guessing answer it is shown as a case (and says nothing else).
    fake.setResponder((req) => {
      const text = JSON.stringify(req.body.messages);
      if (!text.includes("Revised criteria:")) return promptReadingResponder()(req);
      return {
        reply: `Looking at the cases.\nRevised criteria:\n- Every part of the task counts.${text.includes("approximately") ? '\n- Answers that say "approximately" are a FAILURE.' : ""}`,
      };
    });
    const before = fake.requests.length;
    const s = await json(["suggest", "S2", "--accept"]);
    expect(fake.requests.length - before).toBe(1);
    const asked = JSON.stringify(fake.requests[before]!.body.messages);
    // Only the calibration part's disagreements are shown: never a held-out task.
    for (const id of study.heldOutIds) {
      const intent = TWINS.flatMap((t) => t.items.map((i) => i[0]))[seeded.findIndex((t) => t.id === id)]!;
      expect(asked).not.toContain(intent);
    }
    expect(asked).toContain("Cases where people disagreed with the judge (2)");
    expect(s).toMatchObject({
      cases: 2,
      warning: null,
      rubric: '- Every part of the task counts.\n- Answers that say "approximately" are a FAILURE.',
      version: { number: 2, rubricSource: "judge-model", suggestion: { reply: expect.stringContaining("Looking at the cases.") } },
    });
    await json(["run", "S2", "--version", "2"]);
    const [v1, v2] = (await json(["versions", "S2"])).versions;
    expect(v1.measures.kappa.kappa).toBeCloseTo(1 / 6, 12);
    expect(v2.measures.kappa.kappa).toBeCloseTo(8 / 13, 12);
    expect(v2.version.rubricSource).toBe("judge-model");
  });

  it("works through the tRPC router for a researcher: stress test and alignment runs queued for the workers, leakage refused", async () => {
    // The router reads the server's environment: an admin allowed the local (fake) model server.
    Object.assign(process.env, LOCAL_JUDGE_ENV);
    const api = await callerAs(ctx, await testUser(ctx, "researcher"));
    const plan = await api.judge.stress.estimate({ config: "judge", campaign: "Study", k: "full", perturbations: ["no-answer"] });
    expect(plan.estimate).toMatchObject({ trajectories: 10, calls: 20 });
    const started = await api.judge.stress.start({ config: "judge", campaign: "Study", k: "full", perturbations: ["no-answer"] });
    // Queued by the router; a worker runs it (here the batch runner in this process).
    await runJudgeBatch({ db: ctx.db, store: ctx.store, env: LOCAL_JUDGE_ENV }, started.batchId);
    const report = await api.judge.stress.report({ id: started.stressTestId });
    // Without the answer, nothing the judge is shown holds a task's words: every success flips to failure
    // (A ×2, B ×2, E ×2 were successes; C and D failures already).
    expect(report.perturbations[0]!.comparison).toMatchObject({ n: 10, nowRight: 2, nowWrong: 4 });

    const { alignment } = await api.judge.alignment.create({ name: "R1", config: "judge", campaign: "Study", k: 1, seed: 3 });
    const run = await api.judge.alignment.startRun({ id: alignment.id });
    await runJudgeBatch({ db: ctx.db, store: ctx.store, env: LOCAL_JUDGE_ENV }, run.batchId);
    expect((await api.judge.alignment.disagreements({ id: alignment.id })).disagreements).toHaveLength(2);
    await expect(api.judge.alignment.createVersion({ id: alignment.id, examples: [alignment.heldOutIds[0]!] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("is itself in the held-out part"),
    });
    const view = await api.judge.alignment.versions({ id: alignment.id });
    expect(view.versions[0]!.measures.kappa.kappa).toBeCloseTo(1 / 6, 12);
    // The study's batches, and the lists of studies and stress tests, name the configuration and campaign and count
    // their parts.
    expect(view.batches).toEqual([
      expect.objectContaining({
        id: run.batchId,
        selectionLabel: "alignment R1 v1 (every item)",
        status: "succeeded",
        totalPairs: 10,
        succeeded: 10,
        failed: 0,
        cancelled: 0,
        variants: null,
      }),
    ]);
    const [listed] = await api.judge.alignment.list();
    expect(listed).toMatchObject({ id: alignment.id, name: "R1", configName: "judge", campaignName: "Study", k: "1", seed: 3, versions: 1 });
    expect(listed!.calibration + listed!.heldOut).toBe(10);
    expect(listed!.heldOut).toBe(alignment.heldOutIds.length);
    expect(await api.judge.stress.list()).toEqual([
      expect.objectContaining({
        id: started.stressTestId,
        configName: "judge",
        campaignName: "Study",
        k: "full",
        perturbations: ["no-answer"],
        batchId: started.batchId,
        batchStatus: "succeeded",
        trajectories: 10,
      }),
    ]);

    // The study page's split: every item with its part, people's label and site, and the same as CSV.
    const split = await api.judge.alignment.splitItems({ id: alignment.id });
    expect(split.items.filter((i) => i.part === "held-out").map((i) => i.trajectoryId)).toEqual(alignment.heldOutIds);
    expect(split.items.find((i) => i.trajectoryId === seeded[6]!.id)).toMatchObject({ human: "success", site: "library", intent: TWINS[3].items[0][0] });
    const csv = split.csv.split("\r\n");
    expect(csv[0]).toBe("trajectory_id,part,human_label,site,task,intent");
    expect(csv).toContain(
      `${seeded[0]!.id},${alignment.heldOutIds.includes(seeded[0]!.id) ? "held-out" : "calibration"},failure,museum,${split.items.find((i) => i.trajectoryId === seeded[0]!.id)!.taskExternalId},${TWINS[0].items[0][0]}`,
    );

    // A version with the judge model's rubric (kept with its reply), then any two versions compared.
    const suggestion = { reply: `Revised criteria:\n${RUBRIC}`, rubric: RUBRIC, warning: null, model: "m", inputTokens: 10, outputTokens: 5, costUsd: null };
    const v2 = await api.judge.alignment.createVersion({ id: alignment.id, rubric: RUBRIC, rubricSource: "judge-model", suggestion });
    expect(v2).toMatchObject({ number: 2, rubricSource: "judge-model", suggestion: { reply: suggestion.reply } });
    const before = await api.judge.alignment.compare({ id: alignment.id, a: 1, b: 2 });
    expect(before.comparison).toMatchObject({ n: 0, leftOut: 5 });
    await runJudgeBatch({ db: ctx.db, store: ctx.store, env: LOCAL_JUDGE_ENV }, (await api.judge.alignment.startRun({ id: alignment.id, version: 2 })).batchId);
    const heldA = alignment.heldOutIds.find((id) => id === seeded[0]!.id || id === seeded[1]!.id)!;
    const compared = await api.judge.alignment.compare({ id: alignment.id, a: 1, b: 2 });
    expect(compared.comparison).toMatchObject({ n: 5, nowRight: 1, nowWrong: 0 });
    expect(compared.flipped).toEqual([expect.objectContaining({ trajectoryId: heldA, before: "success", after: "failure", direction: "now right" })]);
    expect(compared.diff).toContainEqual({ op: "added", text: '- Answers that say "approximately" are a FAILURE: the task asks for the exact value.' });
    // Backwards: the same item, the other way.
    expect((await api.judge.alignment.compare({ id: alignment.id, a: 2, b: 1 })).flipped).toEqual([
      expect.objectContaining({ trajectoryId: heldA, direction: "now wrong" }),
    ]);
    await expect(api.judge.alignment.compare({ id: alignment.id, a: 1, b: 9 })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
