/**
 * Behaviour search through the trajectory list's router, on SQLite (FTS5) and PostgreSQL (tsvector/GIN).
 *
 * Four trajectories of a blind campaign labelled by Ann and Bob, worked by hand:
 *   T1  thought "A CAPTCHA blocks the form" (step 1), url …/checkout/cart (step 2), "Type [5]; salmon fillet",
 *       element "Add to cart", answer "42 dollars"; judge success, rationale "the zebra price is right";
 *       Ann's note "flamingo on the page", Bob's note "walrus in the corner"
 *   T2  thoughts "captcha again" (steps 0 and 2), url …/home; judge failure
 *   T3  step error "net::ERR_CONNECTION_REFUSED", thought "checking the checkout button"
 *   T4  nothing of the above ("Do thing 4"), until it is imported again with a captcha
 * Ann has labelled T1 only, so T1 is the one trajectory she may browse (T2–T4 are in her blind queue).
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { tablesOf } from "../../db/database";
import { ensureTask, ensureTaskSet, upsertRun } from "../../db/repositories/catalog";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { replaceTrajectoryContent, saveTrajectory, type StepValues } from "../../db/repositories/trajectories";
import type { createCaller } from "../../server/api/root";
import type { TrajectoryListInput } from "../../server/domain/trajectory-list-query";
import { createCampaign, submitLabel } from "../../server/services/annotation";
import { matchingTrajectoryIds } from "../../server/services/trajectory-views";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";

type Caller = ReturnType<typeof createCaller>;

describeEachBackend("behaviour search", (backend) => {
  let ctx: TestContext;
  let researcher: Caller;
  let ann: Caller;
  let annId: string;
  let bobId: string;
  let campaignId: number;
  const T: number[] = [];
  let runId: number;
  let taskIds: number[];
  let key = 0;

  const step = (index: number, s: Partial<StepValues> = {}): StepValues => ({
    index,
    url: `https://shop.test/${index}`,
    thought: null,
    actionRaw: `Click [${index}]`,
    action: { type: "click", target: String(index) },
    ...s,
  });

  function stepsOf(n: number): StepValues[] {
    const specials: Record<number, StepValues[]> = {
      1: [
        step(0),
        step(1, { thought: "A CAPTCHA blocks the form" }),
        step(2, {
          url: "https://shop.test/checkout/cart",
          actionRaw: "Type [5]; salmon fillet",
          action: { type: "type", target: "5", value: "salmon fillet" },
          elements: [
            { label: "5", bbox: null, text: "Add to cart" },
            { label: "6", bbox: null, text: "Search" },
          ],
        }),
      ],
      2: [step(0, { thought: "captcha again" }), step(1, { url: "https://shop.test/home" }), step(2, { thought: "still a captcha, captcha everywhere" })],
      3: [step(0, { error: "net::ERR_CONNECTION_REFUSED" }), step(1, { thought: "checking the checkout button" })],
      4: [step(0), step(1)],
    };
    return specials[n]!;
  }

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-search-");
    const db = ctx.db;
    const setId = await ensureTaskSet(db, { name: "Search set", benchmark: "webvoyager" });
    runId = await upsertRun(db, { runKey: "search-run", name: "secret-agent run", agentName: "secret-agent", model: "m", sourceSystem: "test", config: null });
    taskIds = [];
    T.length = 0;
    for (const n of [1, 2, 3, 4]) {
      const taskId = await ensureTask(db, setId, {
        externalId: `task-${n}`,
        site: "Shop",
        intent: `Do thing ${n}`,
        startUrl: null,
        contentHash: `search-task-${n}`,
      });
      taskIds.push(taskId);
      const steps = stepsOf(n);
      const { id } = await saveTrajectory(db, {
        runId,
        taskId,
        attempt: 0,
        finalAnswer: n === 1 ? "42 dollars" : null,
        outcome: "answered",
        outcomeDetail: null,
        stepCount: steps.length,
        sourceFormat: "test",
        sourcePath: null,
        contentHash: `search-${n}`,
        steps,
      });
      T.push(id);
    }
    await upsertVerdict(db, {
      trajectoryId: T[0]!,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: "judge:1",
      evaluatorName: "Judge",
      k: "1",
      promptVersion: "v1",
      verdict: "success",
      rationale: "the zebra price is right",
    });
    await upsertVerdict(db, {
      trajectoryId: T[1]!,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: "judge:1",
      evaluatorName: "Judge",
      k: "1",
      promptVersion: "v1",
      verdict: "failure",
      rationale: "gave up",
    });
    const r = await testUser(ctx, "researcher", "Rita");
    const a = await testUser(ctx, "annotator", "Ann");
    const b = await testUser(ctx, "annotator", "Bob");
    annId = a.userId;
    bobId = b.userId;
    const campaign = await createCampaign(ctx.db, r, {
      name: "Blind search",
      trajectoryIds: [...T],
      annotatorIds: [annId, bobId],
      annotatorsPerItem: 2,
      blind: true,
    });
    campaignId = campaign.id;
    await submitLabel(ctx.db, a, { campaignId, trajectoryId: T[0]!, verdict: "success", note: "flamingo on the page", idempotencyKey: `search-key-${++key}` });
    await submitLabel(ctx.db, b, { campaignId, trajectoryId: T[0]!, verdict: "success", note: "walrus in the corner", idempotencyKey: `search-key-${++key}` });
    researcher = await callerAs(ctx, r);
    ann = await callerAs(ctx, a);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  const names = (ids: number[]) => ids.map((id) => `T${T.indexOf(id) + 1}`);
  async function find(caller: Caller, search: string, more: Partial<TrajectoryListInput> = {}) {
    const list = await caller.trajectories.list({ search, sort: "relevance", ...more });
    return { names: names(list.rows.map((row) => row.id)), total: list.total, rows: list.rows };
  }

  it("matches words, phrases, fields, prefixes and negation, most matching entries first", async () => {
    // T2 has two captcha thoughts, T1 one: relevance puts T2 first, whatever the case typed.
    expect((await find(researcher, "CAPTCHA")).names).toEqual(["T2", "T1"]);
    expect((await find(researcher, "thought:captcha url:checkout")).names).toEqual(["T1"]);
    expect((await find(researcher, `"add to cart"`)).names).toEqual(["T1"]);
    expect((await find(researcher, `"cart to add"`)).names).toEqual([]);
    expect((await find(researcher, "action:type")).names).toEqual(["T1"]);
    expect((await find(researcher, "url:shop.test/checkout")).names).toEqual(["T1"]);
    expect((await find(researcher, "text:search")).names).toEqual(["T1"]);
    expect((await find(researcher, "answer:42")).names).toEqual(["T1"]);
    expect((await find(researcher, "error:refused")).names).toEqual(["T3"]);
    expect((await find(researcher, "intent:thing -captcha", { sort: "id", dir: "asc" })).names).toEqual(["T3", "T4"]);
    expect((await find(researcher, "check*", { sort: "id", dir: "asc" })).names).toEqual(["T1", "T3"]);
    expect((await find(researcher, "checkou")).names).toEqual([]);
    // A field filter looks only there: "captcha" is in no URL.
    expect((await find(researcher, "url:captcha")).names).toEqual([]);
  });

  it("filters by verdicts and searches rationales and everyone's notes for researchers", async () => {
    expect((await find(researcher, "judge:failure")).names).toEqual(["T2"]);
    expect((await find(researcher, "captcha judge:success")).names).toEqual(["T1"]);
    expect((await find(researcher, "rationale:zebra")).names).toEqual(["T1"]);
    expect((await find(researcher, "zebra")).names).toEqual(["T1"]);
    expect((await find(researcher, "note:walrus")).names).toEqual(["T1"]);
    expect((await find(researcher, "flamingo")).names).toEqual(["T1"]);
  });

  it("shows each hit's step with the matched words marked", async () => {
    const { rows } = await find(researcher, "captcha");
    const t2 = rows.find((r) => r.id === T[1])!;
    expect(t2.hits!.map((h) => [h.stepIndex, h.field, h.parts.filter((p) => p.match).map((p) => p.text)])).toEqual([
      [0, "thought", ["captcha"]],
      [2, "thought", ["captcha", "captcha"]],
    ]);
    const t1 = (await find(researcher, `"salmon fillet" answer:42`)).rows[0]!;
    expect(t1.hits!.map((h) => [h.stepIndex, h.field, h.parts.map((p) => (p.match ? `[${p.text}]` : p.text)).join("")])).toEqual([
      [2, "action", "Type [5]; [salmon fillet]"],
      [null, "answer", "[42] dollars"],
    ]);
  });

  it("refuses bad syntax with a readable error", async () => {
    await expect(researcher.trajectories.list({ search: `thought:"captcha` })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/^search: the quote at position 9 is never closed/),
    });
    await expect(researcher.trajectories.list({ search: "thougt:captcha" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/thougt: is not a field/),
    });
  });

  it("keeps up with new, re-imported and deleted text, labels and verdicts", async () => {
    const db = ctx.db;
    expect((await find(researcher, "octopus")).names).toEqual([]);
    // A re-import of T4 with a captcha thought, a new trajectory, a new note, a judge's new rationale.
    await replaceTrajectoryContent(db, T[3]!, {
      runId,
      taskId: taskIds[3]!,
      attempt: 0,
      finalAnswer: null,
      outcome: "answered",
      outcomeDetail: null,
      stepCount: 1,
      sourceFormat: "test",
      sourcePath: null,
      contentHash: "search-4b",
      steps: [step(0, { thought: "an octopus captcha" })],
    });
    expect((await find(researcher, "octopus")).names).toEqual(["T4"]);
    expect((await find(researcher, "captcha")).total).toBe(3);
    const { id: t5 } = await saveTrajectory(db, {
      runId,
      taskId: taskIds[3]!,
      attempt: 1,
      finalAnswer: "octopus ink",
      outcome: "answered",
      outcomeDetail: null,
      stepCount: 0,
      sourceFormat: "test",
      sourcePath: null,
      contentHash: "search-5",
      steps: [],
    });
    expect((await find(researcher, "answer:octopus")).rows.map((r) => r.id)).toEqual([t5]);
    await submitLabel(
      db,
      { userId: annId, name: "Ann", role: "annotator" },
      { campaignId, trajectoryId: T[2]!, verdict: "success", note: "octopus-shaped spinner", idempotencyKey: `search-key-${++key}` },
    );
    expect((await find(researcher, "note:octopus")).names).toEqual(["T3"]);
    await upsertVerdict(db, {
      trajectoryId: T[1]!,
      kind: "judge",
      origin: "verdict",
      evaluatorKey: "judge:1",
      evaluatorName: "Judge",
      k: "1",
      promptVersion: "v1",
      verdict: "failure",
      rationale: "an octopus blocked it",
    });
    expect((await find(researcher, "rationale:octopus")).names).toEqual(["T2"]);
    expect((await find(researcher, "rationale:gave")).names).toEqual([]);
    // The task's intent edited; the verdicts and the trajectory deleted.
    const { tasks, evaluatorVerdicts, trajectories } = tablesOf(db);
    await db.update(tasks).set({ intent: "Find the octopus" }).where(eq(tasks.id, taskIds[0]!));
    expect((await find(researcher, "intent:octopus")).names).toEqual(["T1"]);
    await db.delete(evaluatorVerdicts).where(eq(evaluatorVerdicts.trajectoryId, T[1]!));
    expect((await find(researcher, "rationale:octopus")).names).toEqual([]);
    await db.delete(trajectories).where(eq(trajectories.id, t5));
    expect((await find(researcher, "answer:octopus")).names).toEqual([]);
  });

  it("applies the blind to annotators: no rationales, no one else's notes, no trajectories they may not browse, in rows or counts", async () => {
    // Ann may browse T1 only: "captcha" is in T1 and T2, yet she is told of one.
    expect(await find(ann, "captcha")).toMatchObject({ names: ["T1"], total: 1 });
    expect((await find(ann, "error:refused")).total).toBe(0);
    // Her own note is hers to search; Bob's note and the judge's rationale on the same trajectory match nothing.
    expect((await find(ann, "flamingo")).names).toEqual(["T1"]);
    expect((await find(ann, "note:flamingo")).names).toEqual(["T1"]);
    expect((await find(ann, "walrus")).total).toBe(0);
    expect((await find(ann, "note:walrus")).total).toBe(0);
    expect((await find(ann, "zebra")).total).toBe(0);
    expect((await find(ann, "captcha -zebra")).total).toBe(1);
    expect((await find(ann, "captcha -walrus")).total).toBe(1);
    // Asking for verdicts or rationales is refused, whatever they would have found.
    for (const search of ["rationale:zebra", "rationale:nothing", "judge:success", "human:failure", "captcha judge:failure"]) {
      await expect(ann.trajectories.list({ search })).rejects.toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringMatching(/are for researchers and admins$/),
      });
    }
    // The hits she is shown are hers too: T1's matches for "flamingo walrus"-like queries never include Bob's note.
    const rows = (await find(ann, "flamingo")).rows;
    expect(rows[0]!.hits!.map((h) => h.field)).toEqual(["note"]);
    expect(JSON.stringify(rows)).not.toMatch(/walrus|zebra/);
  });

  it("selects what it finds for campaigns and judge batches as the list shows it", async () => {
    expect(names(await matchingTrajectoryIds(ctx.db, { search: "thought:captcha" }))).toEqual(["T1", "T2"]);
    expect(names(await matchingTrajectoryIds(ctx.db, { search: "thought:captcha judge:failure" }))).toEqual(["T2"]);
    await expect(matchingTrajectoryIds(ctx.db, { search: "url:" })).rejects.toThrow(/url: needs something to look for/);
  });
});
