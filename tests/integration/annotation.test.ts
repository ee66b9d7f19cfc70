import path from "node:path";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { evaluatorVerdicts, labelRevisions, labels, reservations } from "../../db/schema/index";
import type { Actor } from "../../server/domain/access/actor";
import { getAuth } from "../../server/auth/auth";
import { AppError } from "../../server/errors";
import { acceptInvitation, changeRole, createAccount, describeInvitation, invite, setDeactivated } from "../../server/services/accounts";
import {
  adjudicate,
  adjudicationQueue,
  campaignLabelRows,
  campaignOverview,
  createCampaign,
  exportCampaignLabels,
  importLabelsCsv,
  itemReview,
  myLabel,
  nextAssignment,
  type Assignment,
  reopenItem,
  setCampaignAnnotators,
  skipAssignment,
  submitLabel,
  undoSubmit,
  updateCampaignSettings,
} from "../../server/services/annotation";
import { assertMayViewEvaluations, visibleEvaluationFilter, visibleLabelsOfTrajectory } from "../../server/services/access";
import { parseCsvTable } from "../../server/domain/csv";
import { createTestContext, type TestContext } from "../helpers/context";
import { makeActor, seedTrajectories } from "../helpers/annotation-fixture";
import { runAtBarrier } from "../helpers/barrier";

const root = path.resolve(__dirname, "..", "..");

let ctx: TestContext;
let admin: Actor;
let researcher: Actor;
beforeEach(async () => {
  ctx = createTestContext("verdict-annotation-");
  admin = await makeActor(ctx, "Admin", "admin");
  researcher = await makeActor(ctx, "Rita Researcher", "researcher");
});
afterEach(async () => {
  await ctx.cleanup();
});

async function errorCodeAsync(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  throw new Error("expected the call to throw");
}

let keySeq = 0;
const key = async () => `test-key-${++keySeq}-${Math.random().toString(36).slice(2)}`;

async function annotators(n: number): Promise<Actor[]> {
  const out: Actor[] = [];
  for (let i = 0; i < n; i++) out.push(await makeActor(ctx, `Annotator ${String.fromCharCode(65 + i)}`, "annotator"));
  return out;
}

async function submit(
  actor: Actor,
  campaignId: number,
  trajectoryId: number,
  v: { verdict: string; category?: string | null; note?: string; firstFailingStep?: number | null },
  extra: { now?: number; key?: string; timeSpentMs?: number; stepsViewed?: number[]; baseRevision?: number } = {},
) {
  return await submitLabel(
    ctx.db,
    actor,
    {
      campaignId,
      trajectoryId,
      ...v,
      category: v.category ?? (v.verdict === "failure" ? "navigation stuck" : null),
      idempotencyKey: extra.key ?? (await key()),
      timeSpentMs: extra.timeSpentMs,
      stepsViewed: extra.stepsViewed,
      baseRevision: extra.baseRevision,
    },
    { now: extra.now },
  );
}

describe("accounts and roles", () => {
  it("makes the first account admin whatever role was asked, keeps later roles, and has no public sign-up", async () => {
    const fresh = createTestContext("verdict-accounts-");
    try {
      const first = await createAccount(fresh, { email: "First@Example.org", name: "First", role: "annotator", password: "long-enough-1" });
      expect(first.user).toMatchObject({ role: "admin", email: "first@example.org" });
      const second = await createAccount(fresh, { email: "second@example.org", name: "Second", role: "annotator" });
      expect(second.user.role).toBe("annotator");
      expect(second.generatedPassword).toMatch(/^[A-Za-z0-9_-]{16}$/);

      const auth = await getAuth(fresh);
      const ok = await auth.api.signInEmail({ body: { email: "second@example.org", password: second.generatedPassword! } });
      expect(ok.user.email).toBe("second@example.org");
      await expect(auth.api.signInEmail({ body: { email: "second@example.org", password: "wrong-password" } })).rejects.toThrow();
      await expect(auth.api.signUpEmail({ body: { email: "x@example.org", password: "long-enough-2", name: "X" } })).rejects.toThrow(/not enabled/i);
      expect(await errorCodeAsync(() => createAccount(fresh, { email: "SECOND@example.org", name: "Again", role: "researcher" }))).toBe("CONFLICT");
    } finally {
      await fresh.cleanup();
    }
  });

  it("never removes the last admin, and deactivated users cannot sign in", async () => {
    expect(await errorCodeAsync(async () => await changeRole(ctx, admin.userId, "researcher"))).toBe("CONFLICT");
    const [a] = await annotators(1);
    await setDeactivated(ctx, admin.userId, a!.userId, true);
    await expect((await getAuth(ctx)).api.signInEmail({ body: { email: "annotator.a@test.example", password: "correct-horse-battery" } })).rejects.toThrow();
    await setDeactivated(ctx, admin.userId, a!.userId, false);
    const ok = await (await getAuth(ctx)).api.signInEmail({ body: { email: "annotator.a@test.example", password: "correct-horse-battery" } });
    expect(ok.user.id).toBe(a!.userId);
    await changeRole(ctx, researcher.userId, "admin");
    await changeRole(ctx, admin.userId, "researcher");
  });

  it("invitations create an account with the invited role, once", async () => {
    const inv = await invite(ctx, admin.userId, { email: "New@Example.org", role: "researcher" });
    expect(await describeInvitation(ctx, inv.token)).toMatchObject({ email: "new@example.org", role: "researcher" });
    const user = await acceptInvitation(ctx, inv.token, { name: "New Person", password: "new-password-1" });
    expect(user).toMatchObject({ email: "new@example.org", role: "researcher", name: "New Person" });
    expect(await errorCodeAsync(async () => await acceptInvitation(ctx, inv.token, { name: "Again", password: "new-password-2" }))).toBe("NOT_FOUND");
    const expired = await invite(ctx, admin.userId, { email: "late@example.org", role: "annotator" }, new Date(Date.now() - 8 * 86_400_000));
    expect(await errorCodeAsync(async () => await describeInvitation(ctx, expired.token))).toBe("NOT_FOUND");
  });

  it("only researchers and admins manage campaigns and adjudicate", async () => {
    const [a] = await annotators(1);
    const ids = await seedTrajectories(ctx.db, 2);
    expect(await errorCodeAsync(async () => await createCampaign(ctx.db, a!, { name: "x", trajectoryIds: ids }))).toBe("FORBIDDEN");
    const c = await createCampaign(ctx.db, researcher, { name: "Roles", trajectoryIds: ids, annotatorIds: [a!.userId], annotatorsPerItem: 1 });
    expect(await errorCodeAsync(async () => await updateCampaignSettings(ctx.db, a!, c.id, { blind: false }))).toBe("FORBIDDEN");
    expect(await errorCodeAsync(async () => await campaignOverview(ctx.db, a!, c.id))).toBe("FORBIDDEN");
    expect(await errorCodeAsync(async () => await adjudicationQueue(ctx.db, a!, { campaignId: c.id }))).toBe("FORBIDDEN");
    await submit(a!, c.id, ids[0]!, { verdict: "success" });
    expect(
      await errorCodeAsync(
        async () => await adjudicate(ctx.db, a!, { campaignId: c.id, trajectoryId: ids[0]!, verdict: "failure", category: "other", reason: "no" }),
      ),
    ).toBe("FORBIDDEN");
    expect(await errorCodeAsync(async () => await exportCampaignLabels(ctx.db, a!, c.id, "csv"))).toBe("FORBIDDEN");
    // A researcher who is not on the campaign cannot label in it.
    expect(await errorCodeAsync(async () => await nextAssignment(ctx.db, researcher, c.id))).toBe("FORBIDDEN");
  });
});

describe("campaigns and assignment", () => {
  it("creates a campaign from the trajectory list's filter with WebVoyager defaults", async () => {
    const gpt = await seedTrajectories(ctx.db, 3, { model: "gpt-4o", taskSet: "Set A" });
    await seedTrajectories(ctx.db, 2, { model: "claude", taskSet: "Set A" });
    const c = await createCampaign(ctx.db, researcher, { name: "GPT only", filter: { model: "gpt-4o" } });
    expect(c).toMatchObject({ annotatorsPerItem: 3, blind: true, status: "active", selection: { description: "model gpt-4o", filter: { model: "gpt-4o" } } });
    expect(c.labelSchema.categories).toEqual(["navigation stuck", "visual grounding issue", "hallucination", "prompt misalignment", "other"]);
    const overview = await campaignOverview(ctx.db, researcher, c.id);
    expect(overview.counts.items).toBe(3);
    expect(overview.warnings[0]).toMatch(/0 annotators for 3 labels/);
    expect(await errorCodeAsync(async () => await createCampaign(ctx.db, researcher, { name: "GPT only", trajectoryIds: gpt }))).toBe("CONFLICT");
    expect(await errorCodeAsync(async () => await createCampaign(ctx.db, researcher, { name: "Nothing", filter: { model: "nope" } }))).toBe("BAD_REQUEST");
    expect(await errorCodeAsync(async () => await createCampaign(ctx.db, researcher, { name: "Bad", trajectoryIds: [999_999] }))).toBe("BAD_REQUEST");
    expect(await errorCodeAsync(async () => await createCampaign(ctx.db, researcher, { name: "Bad k", trajectoryIds: gpt, annotatorsPerItem: 0 }))).toBe(
      "BAD_REQUEST",
    );
  });

  it("hands out the least-covered trajectory the annotator has not labelled, and resumes a held reservation", async () => {
    const ids = await seedTrajectories(ctx.db, 3);
    const [a, b, c, d] = await annotators(4);
    const camp = await createCampaign(ctx.db, researcher, {
      name: "Coverage",
      trajectoryIds: ids,
      annotatorsPerItem: 2,
      annotatorIds: [a, b, c, d].map((x) => x!.userId),
    });
    const first: Assignment[] = [];
    for (const x of [a, b, c]) first.push((await nextAssignment(ctx.db, x!, camp.id))!);
    // Three annotators, three uncovered trajectories: each gets a different one.
    expect(new Set(first.map((f) => f.trajectoryId)).size).toBe(3);
    expect(first.every((f) => !f.resumed)).toBe(true);
    // Asking again returns the same reservation.
    const again = (await nextAssignment(ctx.db, a!, camp.id))!;
    expect(again).toMatchObject({ trajectoryId: first[0]!.trajectoryId, resumed: true });

    // D gets an item that has one holder; then a's item is labelled and a moves on to an item not labelled by them.
    const dAssign = (await nextAssignment(ctx.db, d!, camp.id))!;
    expect(ids).toContain(dAssign.trajectoryId);
    await submit(a!, camp.id, first[0]!.trajectoryId, { verdict: "success" });
    const aNext = await nextAssignment(ctx.db, a!, camp.id);
    // Every other trajectory is held by one person and needs two: a can take one of them, never their own.
    expect(aNext).not.toBeNull();
    expect(aNext!.trajectoryId).not.toBe(first[0]!.trajectoryId);

    // Fill everything: each of the 3 trajectories needs 2 labels = 6 labels.
    const people = [a, b, c, d].map((x) => x!);
    let labelled = 1;
    for (let round = 0; round < 10 && labelled < 6; round++) {
      for (const p of people) {
        const n = await nextAssignment(ctx.db, p, camp.id);
        if (!n) continue;
        await submit(p, camp.id, n.trajectoryId, { verdict: "success" });
        labelled++;
      }
    }
    const rows = await ctx.db.select().from(labels);
    expect(rows.length).toBe(6);
    const perTrajectory = new Map<number, Set<string>>();
    for (const r of rows) perTrajectory.set(r.trajectoryId, (perTrajectory.get(r.trajectoryId) ?? new Set()).add(r.userId!));
    expect([...perTrajectory.values()].map((s) => s.size)).toEqual([2, 2, 2]);
    for (const p of people) expect(await nextAssignment(ctx.db, p, camp.id)).toBeNull();
    expect((await campaignOverview(ctx.db, researcher, camp.id)).counts).toMatchObject({ items: 3, agreed: 3, labels: 6 });
  });

  it("reserves a trajectory until the reservation expires, then hands it to someone else; a late submit is still kept", async () => {
    const [t] = await seedTrajectories(ctx.db, 1);
    const [a, b] = await annotators(2);
    const camp = await createCampaign(ctx.db, researcher, {
      name: "Expiry",
      trajectoryIds: [t!],
      annotatorsPerItem: 1,
      reservationMinutes: 10,
      annotatorIds: [a!.userId, b!.userId],
    });
    const t0 = Date.UTC(2030, 0, 1);
    const held = (await nextAssignment(ctx.db, a!, camp.id, { now: t0 }))!;
    expect(held.expiresAt.getTime()).toBe(t0 + 10 * 60_000);
    expect(await nextAssignment(ctx.db, b!, camp.id, { now: t0 + 9 * 60_000 })).toBeNull();
    const taken = await nextAssignment(ctx.db, b!, camp.id, { now: t0 + 10 * 60_000 + 1 });
    expect(taken?.trajectoryId).toBe(t);
    await submit(b!, camp.id, t!, { verdict: "success" }, { now: t0 + 11 * 60_000 });
    // a comes back after the expiry: their work is stored, not rejected.
    const late = await submit(a!, camp.id, t!, { verdict: "failure" }, { now: t0 + 12 * 60_000 });
    expect(late.replayed).toBe(false);
    expect(await ctx.db.select().from(labels)).toHaveLength(2);
    expect(await ctx.db.select().from(reservations)).toHaveLength(0);
  });

  it("skipped trajectories come back only when nothing else is left", async () => {
    const ids = await seedTrajectories(ctx.db, 2);
    const [a] = await annotators(1);
    const camp = await createCampaign(ctx.db, researcher, { name: "Skip", trajectoryIds: ids, annotatorsPerItem: 1, annotatorIds: [a!.userId] });
    const first = (await nextAssignment(ctx.db, a!, camp.id))!;
    await skipAssignment(ctx.db, a!, camp.id, first.trajectoryId);
    const second = (await nextAssignment(ctx.db, a!, camp.id))!;
    expect(second.trajectoryId).not.toBe(first.trajectoryId);
    await submit(a!, camp.id, second.trajectoryId, { verdict: "success" });
    expect((await nextAssignment(ctx.db, a!, camp.id))!.trajectoryId).toBe(first.trajectoryId);
  });

  it("never hands the last slot to two annotators asking at once from separate processes", async () => {
    const ids = await seedTrajectories(ctx.db, 5);
    const people = await annotators(16);
    const camp = await createCampaign(ctx.db, researcher, {
      name: "Race",
      trajectoryIds: ids,
      annotatorsPerItem: 2,
      annotatorIds: people.map((p) => p.userId),
    });
    const child = path.join(root, "tests", "helpers", "annotation-next-child.ts");
    const groups = [0, 1, 2, 3].map((g) => people.filter((_, i) => i % 4 === g).map((p) => p.userId));
    type Call = { userId: string; itemId: number | null; startedAt: number; endedAt: number };
    const outputs = (
      await runAtBarrier(
        groups.map((userIds) => ({ command: process.execPath, args: ["--import", "tsx", child, ctx.config.dbPath, String(camp.id), ...userIds], cwd: root })),
      )
    ).map((out) => JSON.parse(out) as Call[]);
    // They raced: some call of one process was under way while a call of another process was.
    const overlapping = outputs.some((mine, i) =>
      outputs.some((theirs, j) => j !== i && mine.some((a) => theirs.some((b) => a.startedAt < b.endedAt && b.startedAt < a.endedAt))),
    );
    expect(overlapping).toBe(true);
    const results = outputs.flat();
    const got = results.filter((r) => r.itemId !== null);
    // 5 trajectories × 2 slots: exactly 10 of the 16 annotators get one, and no trajectory gets a third.
    expect(got).toHaveLength(10);
    const perItem = new Map<number, number>();
    for (const r of got) perItem.set(r.itemId!, (perItem.get(r.itemId!) ?? 0) + 1);
    expect([...perItem.values()].sort()).toEqual([2, 2, 2, 2, 2]);
    expect(await ctx.db.select().from(reservations)).toHaveLength(10);
  }, 60_000);
});

describe("labels: validation, revision history, idempotency, undo", () => {
  async function oneCampaign(n = 2, k = 1) {
    const ids = await seedTrajectories(ctx.db, n, { steps: 5 });
    const people = await annotators(2);
    const camp = await createCampaign(ctx.db, researcher, {
      name: "Labels",
      trajectoryIds: ids,
      annotatorsPerItem: k,
      annotatorIds: people.map((p) => p.userId),
    });
    return { ids, people, camp };
  }

  it("validates labels against the campaign's schema", async () => {
    const { ids, people, camp } = await oneCampaign();
    const a = people[0]!;
    const bad = async (v: Parameters<typeof submitLabel>[2]) => await errorCodeAsync(async () => await submitLabel(ctx.db, a, v));
    const base = { campaignId: camp.id, trajectoryId: ids[0]!, idempotencyKey: await key() };
    expect(await bad({ ...base, verdict: "failure", category: null })).toBe("BAD_REQUEST");
    expect(await bad({ ...base, verdict: "failure", category: "typo" })).toBe("BAD_REQUEST");
    expect(await bad({ ...base, verdict: "failure", category: "other", firstFailingStep: 5 })).toBe("BAD_REQUEST");
    expect(await bad({ ...base, verdict: "unsure" })).toBe("BAD_REQUEST");
    expect(await bad({ ...base, verdict: "maybe" })).toBe("BAD_REQUEST");
    expect(await bad({ ...base, verdict: "success", idempotencyKey: "short" })).toBe("BAD_REQUEST");
    expect(await bad({ ...base, verdict: "success", stepsViewed: [0, 9] })).toBe("BAD_REQUEST");
    await expect(submitLabel(ctx.db, a, { ...base, verdict: "failure", category: "typo" })).rejects.toThrow(/^category: "typo" is not one of/);
    // A success drops category and first failing step.
    const ok = await submitLabel(ctx.db, a, { ...base, verdict: "success", category: "other", firstFailingStep: 2 });
    expect(ok.values).toEqual({ verdict: "success", category: null, firstFailingStep: null, note: null });
    // Outsiders, unknown trajectories and closed campaigns are refused.
    const outsider = await makeActor(ctx, "Outsider", "annotator");
    expect(await errorCodeAsync(async () => await submitLabel(ctx.db, outsider, { ...base, idempotencyKey: await key(), verdict: "success" }))).toBe(
      "FORBIDDEN",
    );
    expect(
      await errorCodeAsync(async () => await submitLabel(ctx.db, a, { ...base, trajectoryId: 999_999, idempotencyKey: await key(), verdict: "success" })),
    ).toBe("NOT_FOUND");
    await updateCampaignSettings(ctx.db, researcher, camp.id, { status: "closed" });
    expect(await errorCodeAsync(async () => await submitLabel(ctx.db, a, { ...base, idempotencyKey: await key(), verdict: "success" }))).toBe("CONFLICT");
  });

  it("keeps every revision with who, when and what changed; time spent adds up and steps viewed merge", async () => {
    const { ids, people, camp } = await oneCampaign();
    const a = people[0]!;
    const t = ids[0]!;
    const r1 = await submit(
      a,
      camp.id,
      t,
      { verdict: "failure", category: "hallucination", firstFailingStep: 3, note: "made up the price" },
      { timeSpentMs: 40_000, stepsViewed: [0, 1, 4] },
    );
    const r2 = await submit(
      a,
      camp.id,
      t,
      { verdict: "failure", category: "visual grounding issue", firstFailingStep: 2, note: "made up the price" },
      { timeSpentMs: 5_000, stepsViewed: [2], baseRevision: 1 },
    );
    expect([r1.revision, r2.revision]).toEqual([1, 2]);
    expect(r2.labelId).toBe(r1.labelId);
    const mine = await myLabel(ctx.db, a, camp.id, t);
    expect(mine.label).toMatchObject({ revision: 2, category: "visual grounding issue", firstFailingStep: 2, timeSpentMs: 45_000, stepsViewed: [0, 1, 2, 4] });
    expect(mine.history.map((h) => h.action)).toEqual(["submit", "submit"]);
    expect(mine.history[1]!.changes).toEqual([
      { field: "category", from: "hallucination", to: "visual grounding issue" },
      { field: "firstFailingStep", from: 3, to: 2 },
    ]);
    const revs = await ctx.db.select().from(labelRevisions).where(eq(labelRevisions.labelId, r1.labelId));
    expect(revs.map((r) => [r.actorId, r.actorName, r.timeSpentMs])).toEqual([
      [a.userId, a.name, 40_000],
      [a.userId, a.name, 5_000],
    ]);
    // Editing from a stale copy is refused instead of silently overwriting.
    expect(await errorCodeAsync(async () => await submit(a, camp.id, t, { verdict: "success" }, { baseRevision: 1 }))).toBe("CONFLICT");
  });

  it("stores a double submit once (same idempotency key) and rejects a key reused for another request", async () => {
    const { ids, people, camp } = await oneCampaign();
    const [a, b] = people;
    const k = await key();
    const first = await submit(a!, camp.id, ids[0]!, { verdict: "success" }, { key: k });
    const second = await submit(a!, camp.id, ids[0]!, { verdict: "success" }, { key: k });
    expect(second).toEqual({ ...first, replayed: true });
    expect(await ctx.db.select().from(labelRevisions)).toHaveLength(1);
    expect(await errorCodeAsync(async () => await submit(b!, camp.id, ids[0]!, { verdict: "success" }, { key: k }))).toBe("CONFLICT");
    expect(await errorCodeAsync(async () => await undoSubmit(ctx.db, a!, { campaignId: camp.id, idempotencyKey: k }))).toBe("CONFLICT");
  });

  it("undo withdraws a first submit (keeping the slot) and restores the previous version of a revision", async () => {
    const { people, camp } = await oneCampaign(2, 1);
    const [a, b] = people;
    const got = (await nextAssignment(ctx.db, a!, camp.id))!;
    const s1 = await submit(a!, camp.id, got.trajectoryId, { verdict: "failure", category: "other" });
    expect(s1.itemState).toBe("agreed");
    const u1 = await undoSubmit(ctx.db, a!, { campaignId: camp.id, revisionId: s1.revisionId, idempotencyKey: await key() });
    expect(u1).toMatchObject({ status: "withdrawn", labelId: s1.labelId, itemState: "open" });
    // The label row is kept (withdrawn), the slot is a's again, and b cannot take it.
    expect((await ctx.db.select().from(labels).where(eq(labels.id, s1.labelId)))[0]!.status).toBe("withdrawn");
    const bGets = (await nextAssignment(ctx.db, b!, camp.id))!;
    expect(bGets.trajectoryId).not.toBe(got.trajectoryId);
    expect(await nextAssignment(ctx.db, a!, camp.id)).toMatchObject({ trajectoryId: got.trajectoryId, resumed: true });

    const s2 = await submit(a!, camp.id, got.trajectoryId, { verdict: "success" });
    const s3 = await submit(a!, camp.id, got.trajectoryId, { verdict: "failure", category: "hallucination" });
    const undoKey = await key();
    const u3 = await undoSubmit(ctx.db, a!, { campaignId: camp.id, idempotencyKey: undoKey });
    expect(u3).toMatchObject({ status: "active", values: { verdict: "success" }, revision: s3.revision + 1 });
    // The same undo again (retry) is a no-op; a fresh undo reverts the next older submit.
    expect(await undoSubmit(ctx.db, a!, { campaignId: camp.id, idempotencyKey: undoKey })).toMatchObject({ replayed: true, revisionId: u3.revisionId });
    const u2 = await undoSubmit(ctx.db, a!, { campaignId: camp.id, revisionId: s2.revisionId, idempotencyKey: await key() });
    expect(u2.status).toBe("withdrawn");
    expect(
      await errorCodeAsync(async () => await undoSubmit(ctx.db, a!, { campaignId: camp.id, revisionId: s2.revisionId, idempotencyKey: await key() })),
    ).toBe("CONFLICT");
    const history = await myLabel(ctx.db, a!, camp.id, got.trajectoryId);
    expect(history.label).toBeNull();
    expect(history.history.map((h) => `${h.action}:${h.status}:${h.undone}`)).toEqual([
      "submit:active:true",
      "undo:withdrawn:false",
      "submit:active:true",
      "submit:active:true",
      "undo:active:false",
      "undo:withdrawn:false",
    ]);
  });

  it("a submit racing an undo never loses the newer label: an undo of an outdated submit is refused", async () => {
    const { ids, people, camp } = await oneCampaign();
    const a = people[0]!;
    const s1 = await submit(a, camp.id, ids[0]!, { verdict: "success" });
    // The newer submit lands first…
    const s2 = await submit(a, camp.id, ids[0]!, { verdict: "failure", category: "other" });
    // …then the undo that meant to revert s1 arrives.
    expect(await errorCodeAsync(async () => await undoSubmit(ctx.db, a, { campaignId: camp.id, revisionId: s1.revisionId, idempotencyKey: await key() }))).toBe(
      "CONFLICT",
    );
    expect((await myLabel(ctx.db, a, camp.id, ids[0]!)).label).toMatchObject({ verdict: "failure", revision: s2.revision });
    // The other order: undo first, then a submit based on the undone revision is refused, one without a base is a new submit.
    await undoSubmit(ctx.db, a, { campaignId: camp.id, revisionId: s2.revisionId, idempotencyKey: await key() });
    expect(await errorCodeAsync(async () => await submit(a, camp.id, ids[0]!, { verdict: "success" }, { baseRevision: s2.revision }))).toBe("CONFLICT");
    const s4 = await submit(a, camp.id, ids[0]!, { verdict: "success" });
    expect(s4.status).toBe("active");
  });
});

describe("consolidation and adjudication", () => {
  it("consolidates unanimous items automatically and queues disagreements for a researcher", async () => {
    const ids = await seedTrajectories(ctx.db, 2, { steps: 6 });
    const [a, b, c] = await annotators(3);
    const camp = await createCampaign(ctx.db, researcher, {
      name: "Adjudicate",
      trajectoryIds: ids,
      annotatorsPerItem: 3,
      annotatorIds: [a, b, c].map((x) => x!.userId),
    });
    const [agreeT, disputeT] = ids as [number, number];
    await submit(a!, camp.id, agreeT, { verdict: "failure", category: "navigation stuck", firstFailingStep: 4 });
    await submit(b!, camp.id, agreeT, { verdict: "failure", category: "navigation stuck", firstFailingStep: 2 });
    expect((await submit(c!, camp.id, agreeT, { verdict: "failure", category: "navigation stuck" })).itemState).toBe("agreed");

    await submit(a!, camp.id, disputeT, { verdict: "success" }, {});
    await submit(b!, camp.id, disputeT, { verdict: "success" });
    const last = await submit(c!, camp.id, disputeT, { verdict: "failure", category: "hallucination", note: "the answer is not on the page" });
    expect(last.itemState).toBe("disputed");

    const agreed = await itemReview(ctx.db, researcher, camp.id, agreeT);
    expect(agreed.consolidated).toMatchObject({
      verdict: "failure",
      category: "navigation stuck",
      firstFailingStep: 2,
      method: "unanimous",
      adjudicatorId: null,
    });

    const queue = await adjudicationQueue(ctx.db, researcher, { campaignId: camp.id });
    expect(queue.items.map((i) => i.trajectoryId)).toEqual([disputeT]);
    expect(queue.items[0]!.labels.map((l) => l.verdict).sort()).toEqual(["failure", "success", "success"]);
    const review = await itemReview(ctx.db, researcher, camp.id, disputeT);
    expect(review.labels.map((l) => l.note)).toContain("the answer is not on the page");
    expect(review.consolidationHistory.at(-1)).toMatchObject({ state: "disputed", reason: "verdicts differ" });

    const labelsBefore = await ctx.db.select().from(labels).where(eq(labels.trajectoryId, disputeT));
    const decided = await adjudicate(ctx.db, researcher, {
      campaignId: camp.id,
      trajectoryId: disputeT,
      verdict: "failure",
      category: "hallucination",
      reason: "Step 5 shows no price; the answer was invented.",
    });
    expect(decided.consolidated).toMatchObject({
      verdict: "failure",
      category: "hallucination",
      method: "adjudicated",
      adjudicatorId: researcher.userId,
      adjudicatorName: researcher.name,
      reason: "Step 5 shows no price; the answer was invented.",
    });
    // Pre-discussion labels are untouched and now frozen.
    expect(await ctx.db.select().from(labels).where(eq(labels.trajectoryId, disputeT))).toEqual(labelsBefore);
    expect(await errorCodeAsync(async () => await submit(a!, camp.id, disputeT, { verdict: "failure", category: "other" }))).toBe("CONFLICT");
    expect((await adjudicationQueue(ctx.db, researcher, { campaignId: camp.id })).total).toBe(0);
    expect(
      await errorCodeAsync(async () => await adjudicate(ctx.db, researcher, { campaignId: camp.id, trajectoryId: disputeT, verdict: "success", reason: "  " })),
    ).toBe("BAD_REQUEST");

    // Reopening returns the item to what its labels say.
    expect((await reopenItem(ctx.db, researcher, { campaignId: camp.id, trajectoryId: disputeT, reason: "wrong call" })).state).toBe("disputed");
    expect((await itemReview(ctx.db, researcher, camp.id, disputeT)).consolidated).toBeNull();
  });

  it("an unsure label or a category disagreement goes to adjudication; a revision can bring an item back to agreement", async () => {
    const ids = await seedTrajectories(ctx.db, 1);
    const [a, b] = await annotators(2);
    const camp = await createCampaign(ctx.db, researcher, {
      name: "Unsure",
      trajectoryIds: ids,
      annotatorsPerItem: 2,
      annotatorIds: [a!.userId, b!.userId],
      labelSchema: { allowUnsure: true },
    });
    await submit(a!, camp.id, ids[0]!, { verdict: "failure", category: "other" });
    expect((await submit(b!, camp.id, ids[0]!, { verdict: "unsure" })).itemState).toBe("disputed");
    expect((await submit(b!, camp.id, ids[0]!, { verdict: "failure", category: "hallucination" })).itemState).toBe("disputed");
    expect((await submit(b!, camp.id, ids[0]!, { verdict: "failure", category: "other" })).itemState).toBe("agreed");
    // With agreement on the verdict only, differing categories still agree.
    await updateCampaignSettings(ctx.db, researcher, camp.id, { labelSchema: { agreementOn: "verdict" } });
    expect((await submit(b!, camp.id, ids[0]!, { verdict: "failure", category: "hallucination" })).itemState).toBe("agreed");
    expect((await itemReview(ctx.db, researcher, camp.id, ids[0]!)).consolidated).toMatchObject({ verdict: "failure", category: null });
  });
});

describe("blind labelling is enforced on the server", () => {
  it("hides evaluations and other people's labels until the annotator has labelled, in single look-ups and lists", async () => {
    const ids = await seedTrajectories(ctx.db, 3);
    const [a, b] = await annotators(2);
    const [t1, t2, t3] = ids as [number, number, number];
    const blind = await createCampaign(ctx.db, researcher, {
      name: "Blind",
      trajectoryIds: [t1, t2],
      annotatorsPerItem: 2,
      annotatorIds: [a!.userId, b!.userId],
    });
    await createCampaign(ctx.db, researcher, { name: "Open", trajectoryIds: [t3], annotatorsPerItem: 2, blind: false, annotatorIds: [a!.userId] });
    for (const t of ids) {
      await ctx.db
        .insert(evaluatorVerdicts)
        .values({ trajectoryId: t, kind: "judge", origin: "verdict", evaluatorKey: "judge:1", evaluatorName: "GPT judge", verdict: "success" });
    }

    expect(await errorCodeAsync(async () => await assertMayViewEvaluations(ctx.db, a!.userId, t1))).toBe("FORBIDDEN");
    await expect(assertMayViewEvaluations(ctx.db, a!.userId, t3)).resolves.toBeUndefined(); // not blind
    await expect(assertMayViewEvaluations(ctx.db, researcher.userId, t1)).resolves.toBeUndefined(); // not an annotator there

    const filterA = await visibleEvaluationFilter(ctx.db, a!.userId);
    expect([...filterA.hidden].sort()).toEqual([t1, t2]);
    const visibleRows = await ctx.db
      .select({ t: evaluatorVerdicts.trajectoryId })
      .from(evaluatorVerdicts)
      .where(filterA.visibleSql(evaluatorVerdicts.trajectoryId));
    expect(visibleRows.map((r) => r.t)).toEqual([t3]);

    await submit(b!, blind.id, t1, { verdict: "success", note: "b's note" });
    expect(await visibleLabelsOfTrajectory(ctx.db, a!, t1)).toEqual({ hiddenByBlind: true, labels: [] });
    // b has labelled t1: b may now see its evaluations, and that moment is recorded.
    await expect(assertMayViewEvaluations(ctx.db, b!.userId, t1)).resolves.toBeUndefined();
    expect(await errorCodeAsync(async () => await assertMayViewEvaluations(ctx.db, b!.userId, t2))).toBe("FORBIDDEN");

    const s = await submit(a!, blind.id, t1, { verdict: "failure", category: "other" });
    await expect(assertMayViewEvaluations(ctx.db, a!.userId, t1)).resolves.toBeUndefined();
    const seen = await visibleLabelsOfTrajectory(ctx.db, a!, t1);
    expect(seen.labels.map((l) => [l.annotatorName, l.own])).toEqual([
      [b!.name, false],
      [a!.name, true],
    ]);
    expect((await visibleEvaluationFilter(ctx.db, a!.userId)).hidden).toEqual(new Set([t2]));

    // A revision after seeing others' labels is flagged; undoing the label makes the trajectory blind again.
    const revised = await submit(a!, blind.id, t1, { verdict: "success" });
    expect((await ctx.db.select().from(labelRevisions).where(eq(labelRevisions.id, revised.revisionId)))[0]!.afterReveal).toBe(true);
    expect((await itemReview(ctx.db, researcher, blind.id, t1)).labels.find((l) => l.userId === a!.userId)!.revisedAfterReveal).toBe(true);
    await undoSubmit(ctx.db, a!, { campaignId: blind.id, revisionId: revised.revisionId, idempotencyKey: await key() });
    await undoSubmit(ctx.db, a!, { campaignId: blind.id, revisionId: s.revisionId, idempotencyKey: await key() });
    expect(await errorCodeAsync(async () => await assertMayViewEvaluations(ctx.db, a!.userId, t1))).toBe("FORBIDDEN");

    // Turning blind off lifts the rule.
    await updateCampaignSettings(ctx.db, researcher, blind.id, { blind: false });
    await expect(assertMayViewEvaluations(ctx.db, a!.userId, t1)).resolves.toBeUndefined();
  });

  it("annotators see other people's labels only in campaigns they label in", async () => {
    const [t] = await seedTrajectories(ctx.db, 1);
    const [a, b, outsider] = await annotators(3);
    const camp = await createCampaign(ctx.db, researcher, {
      name: "Members",
      trajectoryIds: [t!],
      annotatorsPerItem: 2,
      blind: false,
      annotatorIds: [a!.userId, b!.userId],
    });
    await submit(a!, camp.id, t!, { verdict: "success" });
    expect((await visibleLabelsOfTrajectory(ctx.db, b!, t!)).labels).toHaveLength(1);
    expect((await visibleLabelsOfTrajectory(ctx.db, outsider!, t!)).labels).toHaveLength(0);
    expect((await visibleLabelsOfTrajectory(ctx.db, researcher, t!)).labels).toHaveLength(1);
    await setCampaignAnnotators(ctx.db, researcher, camp.id, { remove: [b!.userId] });
    expect((await visibleLabelsOfTrajectory(ctx.db, b!, t!)).labels).toHaveLength(0);
  });
});

describe("label files", () => {
  it("round-trips a campaign through CSV export and import, and a re-import changes nothing", async () => {
    const ids = await seedTrajectories(ctx.db, 3, { steps: 6 });
    const [a, b] = await annotators(2);
    const camp = await createCampaign(ctx.db, researcher, {
      name: "Round trip",
      trajectoryIds: ids,
      annotatorsPerItem: 2,
      annotatorIds: [a!.userId, b!.userId],
    });
    await submit(a!, camp.id, ids[0]!, {
      verdict: "failure",
      category: "prompt misalignment",
      firstFailingStep: 1,
      note: 'quoted "text", commas,\nand a line break',
    });
    await submit(b!, camp.id, ids[0]!, { verdict: "failure", category: "prompt misalignment", firstFailingStep: 3 });
    await submit(a!, camp.id, ids[1]!, { verdict: "success" });
    await submit(b!, camp.id, ids[1]!, { verdict: "failure", category: "hallucination" });
    await submit(a!, camp.id, ids[2]!, { verdict: "success" });
    await adjudicate(ctx.db, researcher, { campaignId: camp.id, trajectoryId: ids[1]!, verdict: "success", reason: "the goal was met at step 4" });

    const csv = await exportCampaignLabels(ctx.db, researcher, camp.id, "csv");
    expect(csv.fileName).toBe("round-trip-labels.csv");
    const table = parseCsvTable(csv.body);
    const kinds = table.rows.map((r) => r[0]);
    expect(kinds.filter((k) => k === "annotation")).toHaveLength(5);
    expect(kinds.filter((k) => k === "consolidated")).toHaveLength(2);

    const jsonl = (await exportCampaignLabels(ctx.db, researcher, camp.id, "jsonl")).body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(jsonl).toHaveLength(7);
    // Steps leave as the numbers the label panel showed: stored index 1 is "step 2".
    expect(jsonl.find((r) => r.kind === "annotation" && r.trajectory_id === ids[0] && r.annotator_name === a!.name)).toMatchObject({
      first_failing_step_number: 2,
    });
    expect(jsonl.find((r) => r.kind === "consolidated" && r.trajectory_id === ids[1])).toMatchObject({
      verdict: "success",
      consolidation_method: "adjudicated",
      adjudicator: researcher.name,
      reason: "the goal was met at step 4",
    });

    const report = await importLabelsCsv(ctx.db, researcher, {
      csv: csv.body,
      source: "round-trip-labels.csv",
      mapping: {
        annotator: "annotator_name",
        verdict: "verdict",
        trajectoryId: "trajectory_id",
        category: "category",
        firstFailingStep: "first_failing_step_number",
        note: "note",
        where: { column: "kind", equals: "annotation" },
      },
      campaign: { name: "Round trip copy", annotatorsPerItem: 2 },
    });
    expect(report).toMatchObject({ created: 5, updated: 0, unchanged: 0, skipped: 2, unmatchedCount: 0, itemsAdded: 3, annotators: [a!.name, b!.name].sort() });

    const pick = (rows: Awaited<ReturnType<typeof campaignLabelRows>>) =>
      rows.filter((r) => r.kind === "annotation").map((r) => [r.trajectory_id, r.annotator_name, r.verdict, r.category, r.first_failing_step_number, r.note]);
    expect(pick(await campaignLabelRows(ctx.db, report.campaignId!))).toEqual(pick(await campaignLabelRows(ctx.db, camp.id)));
    const states = async (id: number) =>
      (await campaignLabelRows(ctx.db, id)).filter((r) => r.kind === "annotation").map((r) => [r.trajectory_id, r.item_state]);
    // The copy has no adjudication, so the disputed item stays disputed; the rest match.
    expect(await states(report.campaignId!)).toEqual((await states(camp.id)).map(([t, s]) => [t, s === "adjudicated" ? "disputed" : s]));

    const again = await importLabelsCsv(ctx.db, researcher, {
      csv: csv.body,
      source: "again.csv",
      mapping: {
        annotator: "annotator_name",
        verdict: "verdict",
        trajectoryId: "trajectory_id",
        category: "category",
        firstFailingStep: "first_failing_step_number",
        note: "note",
        where: { column: "kind", equals: "annotation" },
      },
      campaign: { id: report.campaignId! },
    });
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 5 });
  });

  it("imports AgentRewardBench-style annotations: Unsure kept as its own value, ids normalised, problems named by line", async () => {
    const ids = await seedTrajectories(ctx.db, 2, {
      benchmark: "visualwebarena",
      taskSet: "ARB VWA",
      agentName: "GenericAgent-gpt-4o-2024-11-20",
      model: "gpt-4o-2024-11-20",
      taskIds: ["visualwebarena.398", "visualwebarena.12"],
    });
    const csv = [
      "annotator_name,benchmark,task_id,model_name,exp_name,trajectory_success,trajectory_side_effect,trajectory_optimality,trajectory_looping",
      "A,visualwebarena,visualwebarena.resized.398,GenericAgent-gpt-4o-2024-11-20,x,Successful,No,4. Completely Optimal,No",
      " H,visualwebarena,visualwebarena.resized.398,GenericAgent-gpt-4o-2024-11-20,x,Unsuccessful,No,1. Complete Failure,Yes",
      "B,visualwebarena,visualwebarena.resized.12,GenericAgent-gpt-4o-2024-11-20,x,Unsure,Unsure,Unsure,No",
      "C,webarena,webarena.177,GenericAgent-gpt-4o-2024-11-20,x,Successful,No,4. Completely Optimal,No",
    ].join("\n");
    const report = await importLabelsCsv(ctx.db, researcher, {
      csv,
      source: "annotations.csv",
      mapping: {
        annotator: "annotator_name",
        verdict: "trajectory_success",
        verdictValues: { Successful: "success", Unsuccessful: "failure", Unsure: "unsure" },
        taskId: "task_id",
        model: "model_name",
        benchmark: "benchmark",
        normalizeTaskIds: true,
      },
      campaign: { name: "ARB experts" },
    });
    expect(report).toMatchObject({ rows: 4, created: 3, unmatchedCount: 1, annotators: ["A", "B", "H"] });
    expect(report.unmatched[0]).toMatchObject({ line: 5, reason: expect.stringContaining('no trajectory of task "webarena.177"') });
    const rows = (await campaignLabelRows(ctx.db, report.campaignId!)).filter((r) => r.kind === "annotation");
    expect(rows.map((r) => [r.trajectory_id, r.annotator_name, r.verdict, r.label_origin])).toEqual([
      [ids[0], "A", "success", "import"],
      [ids[0], "H", "failure", "import"],
      [ids[1], "B", "unsure", "import"],
    ]);
    // k = 1 for imports: the double-annotated disagreement is disputed, the unsure one too.
    expect(rows.map((r) => r.item_state)).toEqual(["disputed", "disputed", "disputed"]);

    expect(
      await errorCodeAsync(
        async () =>
          await importLabelsCsv(ctx.db, researcher, {
            csv: csv.replace("Unsure,Unsure", "Perhaps,Unsure"),
            source: "annotations.csv",
            mapping: {
              annotator: "annotator_name",
              verdict: "trajectory_success",
              verdictValues: { Successful: "success", Unsuccessful: "failure" },
              taskId: "task_id",
            },
            campaign: { name: "Bad" },
          }),
      ),
    ).toBe("BAD_REQUEST");
    await expect(
      importLabelsCsv(ctx.db, researcher, {
        csv,
        source: "annotations.csv",
        mapping: { annotator: "annotator", verdict: "trajectory_success", taskId: "task_id" },
        campaign: { name: "Bad" },
      }),
    ).rejects.toThrow(/annotations\.csv: the annotator column "annotator" is not in the header/);
    const dry = await importLabelsCsv(ctx.db, researcher, {
      csv,
      source: "annotations.csv",
      mapping: { annotator: "annotator_name", verdict: "trajectory_success", taskId: "task_id", model: "model_name", normalizeTaskIds: true },
      campaign: { name: "Dry" },
      dryRun: true,
    });
    expect(dry).toMatchObject({ created: 3, campaignId: null });
  });
});
