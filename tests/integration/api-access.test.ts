/**
 * Who may call each tRPC procedure. Every procedure carries its access level in its meta (set by the builder it
 * starts from); this test checks the level against the policy below and then calls the procedure as signed out,
 * annotator, researcher and admin, expecting exactly the refusals that level implies. A procedure added to a
 * domain without a policy line fails here until someone states who may call it.
 */
import { sqliteClient } from "../../db/database";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluatorVerdicts } from "../../db/schema/index";
import { appRouter } from "../../server/api/root";
import type { Access, ProcedureMeta, RequestSession } from "../../server/api/trpc";
import { getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import { createCampaign } from "../../server/services/annotation";
import { HIDDEN_AGENT } from "../../server/services/access";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createTestContext, type TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";

/** The access policy, by procedure path; the first matching rule wins. */
const POLICY: [RegExp, Access][] = [
  [/^accounts\.(session|setup|invitation|acceptInvitation)$/, "public"],
  [/^accounts\.(me)$/, "signedIn"],
  // Everyone manages their own API tokens; the service keeps them to their owner (admins: the CLI).
  [/^accounts\.apiTokens\./, "signedIn"],
  [/^accounts\.directory$/, "researcher"],
  [/^accounts\./, "admin"],
  [/^campaigns\.list$/, "signedIn"],
  // The QA stage: designated annotators review too; the service refuses anyone who is not a QA reviewer.
  [/^campaigns\.qa(Queue|Review|Submit)$/, "signedIn"],
  // The QA page: designated QA reviewers are often annotators; the service checks the designation per campaign.
  [/^qa\./, "signedIn"],
  [/^campaigns\./, "researcher"],
  // An annotator's own qualification standing: the service answers annotators of the campaign (and researchers) only.
  [/^labelling\.qualification$/, "signedIn"],
  [/^labelling\./, "signedIn"],
  [/^(taskSets|runs)\./, "researcher"],
  // The task validity ledger: researchers and admins flag tasks; annotators never see flags.
  [/^tasks\.(validity|flag)$/, "researcher"],
  [/^(trajectories|tasks)\./, "signedIn"],
  [/^judge\.verdicts\.(forTrajectory|panel)$/, "signedIn"],
  [/^judge\.endpointSettings\./, "admin"],
  [/^(judge|analytics|liveRuns)\./, "researcher"],
  // Scanners: researchers write, run and measure them; the player's markers follow the blind per trajectory.
  [/^scanners\.trajectory$/, "signedIn"],
  [/^scanners\./, "researcher"],
  // Gold items, the qualification's settings and results, and annotator quality: researchers only (annotators must
  // not learn which items are gold).
  [/^quality\./, "researcher"],
  [/^imports\.(startFromPath|dedupe|dedupeJob)$/, "admin"],
  // A deployment profile is an allowance to reach private addresses.
  [/^deploymentProfiles\./, "admin"],
  [/^imports\./, "researcher"],
  // Comment threads: everyone signed in; the service applies the browsing scope and the blind for comments.
  [/^comments\./, "signedIn"],
  // Shareable reports and automation rules are researchers' tools (the service keeps a report to its owner).
  [/^(reports|automation)\./, "researcher"],
  // Pairwise campaigns: researchers create them and read the ranking and the preference pairs (they name the agents);
  // a campaign's annotators answer, which the service checks per campaign.
  [/^pairwise\.(create|ranking|preferencePairs)$/, "researcher"],
  [/^pairwise\./, "signedIn"],
];

type Procedure = { _def: { type: string; meta?: ProcedureMeta } };
const procedures = Object.entries((appRouter._def as unknown as { procedures: Record<string, Procedure> }).procedures);

function policyFor(path: string): Access | undefined {
  return POLICY.find(([re]) => re.test(path))?.[1];
}

let ctx: TestContext;
const sessions: Record<"annotator" | "researcher" | "admin", RequestSession> = {} as never;

beforeAll(async () => {
  ctx = createTestContext("verdict-api-access-");
  sessions.admin = await testUser(ctx, "admin");
  sessions.researcher = await testUser(ctx, "researcher");
  sessions.annotator = await testUser(ctx, "annotator");
});
afterAll(async () => ctx.cleanup());

/** Calls a procedure by path with no input; returns the tRPC error code, or "ok". */
async function codeOf(session: RequestSession | null, path: string): Promise<string> {
  let fn: unknown = await callerAs(ctx, session);
  for (const part of path.split(".")) fn = (fn as Record<string, unknown>)[part];
  try {
    const result = await (fn as (input?: unknown) => Promise<unknown>)(undefined);
    // Subscriptions hand back a stream once their middleware has passed; stop it.
    if (result && typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") {
      await (result as AsyncIterator<unknown> & { return?: () => Promise<unknown> }).return?.();
    }
    return "ok";
  } catch (e) {
    if (e instanceof TRPCError) return e.code;
    throw e;
  }
}

describe("every procedure states who may call it", () => {
  it("has an access level that matches the policy", async () => {
    const problems = procedures
      .map(([path, p]) => ({ path, stated: p._def.meta?.access, policy: policyFor(path) }))
      .filter((x) => !x.stated || !x.policy || x.stated !== x.policy)
      .map((x) => `${x.path}: stated ${x.stated ?? "nothing"}, policy ${x.policy ?? "none (add a POLICY rule)"}`);
    expect(problems).toEqual([]);
    expect(procedures.length).toBeGreaterThan(50);
  });

  const refusals: Record<Access, Record<"out" | "annotator" | "researcher" | "admin", "UNAUTHORIZED" | "FORBIDDEN" | null>> = {
    public: { out: null, annotator: null, researcher: null, admin: null },
    signedIn: { out: "UNAUTHORIZED", annotator: null, researcher: null, admin: null },
    researcher: { out: "UNAUTHORIZED", annotator: "FORBIDDEN", researcher: null, admin: null },
    admin: { out: "UNAUTHORIZED", annotator: "FORBIDDEN", researcher: "FORBIDDEN", admin: null },
  };

  it.each(procedures.map(([path, p]) => [path, p._def.meta?.access ?? "public"] as const))("%s (%s)", async (path, access) => {
    const expected = refusals[access];
    for (const who of ["out", "annotator", "researcher", "admin"] as const) {
      const code = await codeOf(who === "out" ? null : sessions[who], path);
      if (expected[who]) expect(code, `${path} as ${who}`).toBe(expected[who]);
      // Allowed callers may still fail on the missing input or data, but never for who they are.
      else expect(["UNAUTHORIZED", "FORBIDDEN"], `${path} as ${who} gave ${code}`).not.toContain(code);
    }
  });
});

describe("annotators browse only their campaigns' trajectories, blind at the API", () => {
  it("scopes lists, refuses other trajectories, and hides verdicts until the annotator has labelled", async () => {
    const ids = await seedTrajectories(ctx.db, 4, { taskSet: "Access set" });
    const [t1, t2, , t4] = ids as [number, number, number, number];
    const mine = await testUser(ctx, "annotator", "Scoped Annotator");
    const campaign = await createCampaign(
      ctx.db,
      { userId: sessions.researcher.userId, name: "R", role: "researcher" },
      { name: "Scope", trajectoryIds: [t1, t2], annotatorsPerItem: 1, annotatorIds: [mine.userId] },
    );
    // A non-blind campaign of the same annotator: its trajectories are browsable by id (t4 stays out of reach).
    await createCampaign(
      ctx.db,
      { userId: sessions.researcher.userId, name: "R", role: "researcher" },
      { name: "Scope open", trajectoryIds: [ids[2]!], annotatorsPerItem: 1, blind: false, annotatorIds: [mine.userId] },
    );
    expect((await (await callerAs(ctx, mine)).trajectories.list({ ids: [ids[2]!, t4] })).rows.map((r) => r.id)).toEqual([ids[2]]);
    for (const t of ids)
      await ctx.db
        .insert(evaluatorVerdicts)
        .values({ trajectoryId: t, kind: "judge", origin: "verdict", evaluatorKey: "judge:9", evaluatorName: "J", verdict: "failure" });

    const annotator = await callerAs(ctx, mine);
    await expect(annotator.trajectories.byId({ id: t4 })).rejects.toMatchObject({ code: "FORBIDDEN" });

    // Blind: no verdicts and no other labels before their own label, through the same procedures the UI uses.
    await expect(annotator.judge.verdicts.forTrajectory({ trajectoryId: t1 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // Nor which agent made it: a trajectory in their blind queue is not browsable by id at all (not in the list,
    // the player or the task page) until they have labelled it; they open it as a campaign item, agent hidden.
    const realRun = (await (await callerAs(ctx, sessions.researcher)).trajectories.byId({ id: t1 })).run;
    expect(realRun.name).not.toBe(HIDDEN_AGENT);
    await expect(annotator.trajectories.byId({ id: t1 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await annotator.trajectories.list({})).rows.map((r) => r.id)).toEqual([ids[2]]);
    const itemNo = async (t: number) => (await getItemByTrajectory(ctx.db, campaign.id, t))!.itemNo!;
    const blindView = await annotator.labelling.item({ campaignId: campaign.id, itemNo: await itemNo(t1) });
    expect(blindView).toMatchObject({
      agentHidden: true,
      run: { id: 0, name: HIDDEN_AGENT, agentName: HIDDEN_AGENT, model: null },
      trajectory: { id: 0, sourcePath: null },
    });
    expect(await annotator.trajectories.filterOptions()).toMatchObject({ runs: [], models: [] });
    const taskId = (await (await callerAs(ctx, sessions.researcher)).trajectories.byId({ id: t1 })).task.id;
    expect((await annotator.tasks.byId({ id: taskId })).trajectories).toEqual([]);
    await annotator.labelling.submit({ campaignId: campaign.id, itemNo: await itemNo(t1), verdict: "success", idempotencyKey: "access-test-submit-1" });
    // Labelled: the trajectory is browsable, with its agent, for that trajectory only.
    expect((await annotator.trajectories.byId({ id: t1 })).run).toMatchObject({ id: realRun.id, name: realRun.name });
    expect((await annotator.trajectories.list({ sort: "id", dir: "asc" })).rows.map((r) => r.id)).toEqual([t1, ids[2]]);
    await expect(annotator.trajectories.byId({ id: t2 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const verdicts = await annotator.judge.verdicts.forTrajectory({ trajectoryId: t1 });
    expect(verdicts.map((v) => v.evaluatorKey)).toEqual(["judge:9"]);
    await expect(annotator.judge.verdicts.forTrajectory({ trajectoryId: t2 })).rejects.toMatchObject({ code: "FORBIDDEN" });

    // Researchers see everything; the full list includes trajectories outside any campaign.
    const researcher = await callerAs(ctx, sessions.researcher);
    expect((await researcher.trajectories.list({})).total).toBeGreaterThanOrEqual(4);
    expect(await researcher.judge.verdicts.forTrajectory({ trajectoryId: t4 })).toHaveLength(1);
    // An annotator outside the campaign sees none of its trajectories.
    expect((await (await callerAs(ctx, sessions.annotator)).trajectories.list({})).total).toBe(0);
  });

  it("scopes an annotator's list in a campaign larger than SQLite's parameter limit", async () => {
    // 33,000 items: more than the 32,766 parameters one statement may carry, so the scope cannot be an id list.
    const [first] = await seedTrajectories(ctx.db, 1, { taskSet: "Huge set" });
    const big = await testUser(ctx, "annotator", "Big Campaign Annotator");
    const campaign = await createCampaign(
      ctx.db,
      { userId: sessions.researcher.userId, name: "R", role: "researcher" },
      { name: "Huge", trajectoryIds: [first!], annotatorsPerItem: 1, blind: false, annotatorIds: [big.userId] },
    );
    const sqlite = sqliteClient(ctx.db);
    const template = sqlite.prepare("select run_id as runId, task_id as taskId from trajectories where id = ?").get(first) as { runId: number; taskId: number };
    sqlite.transaction(() => {
      const addTrajectory = sqlite.prepare(
        "insert into trajectories (run_id, task_id, attempt, outcome, step_count, source_format, content_hash) values (?, ?, ?, 'answered', 1, 'test', ?)",
      );
      const addItem = sqlite.prepare("insert into campaign_items (campaign_id, trajectory_id) values (?, ?)");
      for (let i = 1; i < 33_000; i++) addItem.run(campaign.id, addTrajectory.run(template.runId, template.taskId, i, `huge-${i}`).lastInsertRowid);
    })();
    const list = await (await callerAs(ctx, big)).trajectories.list({ pageSize: 25 });
    expect(list.total).toBe(33_000);
    expect(list.rows).toHaveLength(25);
    // Other annotators still see none of it.
    expect((await (await callerAs(ctx, sessions.annotator)).trajectories.list({})).total).toBe(0);
  });

  it("holds researchers who label blind to the same rule: no review, export or analytics until they have labelled", async () => {
    const ids = await seedTrajectories(ctx.db, 2, { taskSet: "Blind researcher set" });
    const labeller = await testUser(ctx, "researcher", "Labelling Researcher");
    const other = await testUser(ctx, "annotator", "Other Annotator");
    const campaign = await createCampaign(
      ctx.db,
      { userId: sessions.admin.userId, name: "A", role: "admin" },
      { name: "Researcher blind", trajectoryIds: ids, annotatorsPerItem: 2, annotatorIds: [labeller.userId, other.userId] },
    );
    const api = await callerAs(ctx, labeller);
    const itemNo = async (t: number) => (await getItemByTrajectory(ctx.db, campaign.id, t))!.itemNo!;
    await (
      await callerAs(ctx, other)
    ).labelling.submit({ campaignId: campaign.id, itemNo: await itemNo(ids[0]!), verdict: "success", idempotencyKey: "blind-researcher-1" });
    await expect(api.campaigns.review({ id: campaign.id, trajectoryId: ids[0]! })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.campaigns.exportLabels({ id: campaign.id, format: "csv" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.analytics.options()).rejects.toMatchObject({ code: "FORBIDDEN" });
    const queue = await api.campaigns.adjudicationQueue({ id: campaign.id, states: ["open"] });
    expect(queue.items.length).toBeGreaterThan(0);
    expect(queue.items.map((i) => [i.hiddenByBlind, i.labels.length])).toEqual(queue.items.map(() => [true, 0]));
    // While labelling blind, runs and task sets are closed to them too, and the trajectory is reached only as an item.
    await expect(api.runs.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.taskSets.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.liveRuns.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    // The player's Network and Prompt panels (the prompt holds the task, the agent's reasoning) are closed too.
    await expect(api.liveRuns.stepEvidence({ trajectoryId: ids[0]!, step: 0 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.campaigns.overview({ id: campaign.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(api.trajectories.byId({ id: ids[0]! })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // The home page asks this to send them to their queue instead of the runs.
    expect(await api.trajectories.browsingScope()).toEqual({ wholeCatalog: false });
    for (const t of ids)
      await api.labelling.submit({ campaignId: campaign.id, itemNo: await itemNo(t), verdict: "success", idempotencyKey: `blind-researcher-own-${t}` });
    await expect(api.runs.list()).resolves.toBeTruthy();
    expect(await api.trajectories.browsingScope()).toEqual({ wholeCatalog: true });
    expect(await (await callerAs(ctx, other)).trajectories.browsingScope()).toEqual({ wholeCatalog: false });
    await expect(api.liveRuns.list()).resolves.toBeTruthy();
    await expect(api.campaigns.overview({ id: campaign.id })).resolves.toBeTruthy();
    expect((await api.campaigns.review({ id: campaign.id, trajectoryId: ids[0]! })).labels).toHaveLength(2);
    expect((await api.campaigns.exportLabels({ id: campaign.id, format: "csv" })).body).toContain("Other Annotator");
    await expect(api.analytics.options()).resolves.toBeTruthy();
  });
});

describe("sessions come from better-auth cookies", () => {
  it("reads the signed-in user from the request's cookies, and first-run setup works only once", async () => {
    const fresh = createTestContext("verdict-api-session-");
    try {
      const { createCaller } = await import("../../server/api/root");
      const { createTRPCContext } = await import("../../server/api/trpc");
      const { getAuth } = await import("../../server/auth/auth");
      const anonymous = createCaller(await createTRPCContext({ headers: new Headers() }, fresh));
      expect(await anonymous.accounts.session()).toEqual({ user: null, needsSetup: true });
      const admin = await anonymous.accounts.setup({ email: "first@example.org", name: "First", password: "first-password" });
      expect(admin.role).toBe("admin");
      await expect(anonymous.accounts.setup({ email: "second@example.org", name: "Second", password: "second-password" })).rejects.toMatchObject({
        code: "FORBIDDEN",
      });

      const signedIn = await (await getAuth(fresh)).api.signInEmail({ body: { email: "first@example.org", password: "first-password" }, returnHeaders: true });
      const cookie = signedIn.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      const caller = createCaller(await createTRPCContext({ headers: new Headers({ cookie }) }, fresh));
      expect(await caller.accounts.me()).toMatchObject({ userId: admin.id, role: "admin", name: "First" });
      const created = await caller.accounts.create({ email: "ann@example.org", name: "Ann", role: "annotator" });
      expect(created.generatedPassword).toBeTruthy();
      // A forged cookie is no session.
      const forged = createCaller(
        await createTRPCContext({ headers: new Headers({ cookie: cookie.replace(/=([A-Za-z0-9])/, (_, c: string) => `=${c === "X" ? "Y" : "X"}`) }) }, fresh),
      );
      await expect(forged.accounts.me()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    } finally {
      await fresh.cleanup();
    }
  });
});
