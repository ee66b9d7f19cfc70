/**
 * Scanners against an attacker (issue 29, item 3). Hostile definitions are refused with the field named (patterns
 * that backtrack catastrophically, that do not compile, that are huge; a built-in's key; odd keys); only researchers
 * and admins write, run and read scanners, and not while they label blind; a run's job is read only by whoever
 * started it; a researcher demoted after queuing a run scans nothing; annotators cannot search by scanner, and the
 * player's markers follow the blind: hidden from an annotator of a blind campaign until they have labelled,
 * shown where the campaign is not blind.
 */
import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { hasRevealed } from "../../db/repositories/access/blind-rule";
import { getItemByTrajectory, userAnnotatorKey } from "../../db/repositories/annotation/campaigns";
import { insertLabel } from "../../db/repositories/annotation/labels";
import { saveScanResult } from "../../db/repositories/evaluation/scanners";
import { builtInScanner, definitionHash } from "../../server/domain/evaluation/scanners/definitions";
import { createCampaign } from "../../server/services/annotation";
import { SCANNER_RUN_JOB_TYPE } from "../../server/services/evaluation/scanner-jobs";
import { scannerRunJobHandler } from "../../server/services/evaluation/scanner-job";
import { runWorker } from "../../server/services/jobs/worker";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createTestContext, type TestContext } from "../helpers/context";
import { callerAs, testUser } from "../helpers/trpc";
import type { RequestSession } from "../../server/api/trpc";

let ctx: TestContext;
let researcher: RequestSession;
let ids: number[];

beforeAll(async () => {
  ctx = createTestContext("verdict-security-scanners-");
  researcher = await testUser(ctx, "researcher", "Scan Researcher");
  ids = await seedTrajectories(ctx.db, 4, { taskSet: "Scan set", steps: 3 });
  for (const id of ids) {
    await saveScanResult(ctx.db, {
      scannerKey: "captcha",
      trajectoryId: id,
      definitionHash: definitionHash(builtInScanner("captcha")!),
      problem: null,
      matches: [{ stepIndex: 1, ruleIndex: 0, field: "element", matchedText: "SCANNER-FINDING" }],
    });
  }
});
afterAll(async () => ctx.cleanup());

async function errorOf(p: Promise<unknown>): Promise<TRPCError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TRPCError);
  return e as TRPCError;
}

const rule = (pattern: string, extra: Record<string, unknown> = {}) => ({ kind: "regex", fields: ["element"], pattern, ...extra });
const scanner = (rules: unknown[], extra: Record<string, unknown> = {}) => ({ key: "hostile", name: "Hostile", category: "captcha", rules, ...extra });

describe("hostile scanner definitions", () => {
  it("refuses each with BAD_REQUEST, naming the field, and stores nothing", async () => {
    const api = await callerAs(ctx, researcher);
    const cases: [unknown, string, RegExp][] = [
      [scanner([rule("ok"), rule("(a+)+$")]), "rules[1].pattern", /held|holds a repeated part and is itself repeated/],
      [scanner([rule("(x|xy)*z")]), "rules[0].pattern", /holds alternatives and is itself repeated/],
      [scanner([rule(String.raw`\w*\w*\w*\w*\w*\w*#`)]), "rules[0].pattern", /took longer than 1000 ms together on their test texts/],
      [scanner([rule("(a)\\1")]), "rules[0].pattern", /backreferences/],
      [scanner([rule("[")]), "rules[0].pattern", /does not compile/],
      [scanner([rule("a".repeat(1999))]), "rules[0].pattern", /at most 300 are allowed/],
      [scanner([rule("x", { flags: "gy" })]), "rules[0].pattern", /flag "g" is not allowed/],
      [scanner([rule("x", { fields: ["__proto__"] })]), "rules[0].fields[0]", /Invalid option/],
      [scanner([rule("x")], { key: "captcha" }), "key", /built-in scanner's key/],
      [scanner([rule("x")], { key: "'; drop table scanners; --" }), "key", /a key is 2–40 lower-case letters/],
      [scanner(Array.from({ length: 9 }, () => rule("x"))), "rules", /at most 8 rules/],
      [scanner([{ kind: "javascript", code: "process.exit()" }]), "rules[0].kind", /Invalid/],
    ];
    for (const [input, field, message] of cases) {
      const e = await errorOf(api.scanners.create(input as never));
      expect(e.code, JSON.stringify(input).slice(0, 80)).toBe("BAD_REQUEST");
      expect(e.message.startsWith(`${field}: `), e.message).toBe(true);
      expect(e.message).toMatch(message);
    }
    expect(await ctx.db.select().from(tablesOf(ctx.db).scanners)).toEqual([]);
  });

  it("runs a researcher's pattern in a context that reaches nothing of the server", async () => {
    const api = await callerAs(ctx, researcher);
    // A pattern is data, never code: one that spells out JavaScript only matches those characters.
    await api.scanners.create(scanner([rule(String.raw`process\.exit\(\)|constructor`, { fields: ["element", "action"] })], { key: "inert" }));
    const { jobId } = await api.scanners.run({ scannerKeys: ["inert"], filter: { ids } });
    await runWorker({ db: ctx.db, handlers: { [SCANNER_RUN_JOB_TYPE]: scannerRunJobHandler(ctx) }, concurrency: 1, untilIdle: true });
    expect((await api.scanners.job({ id: jobId })).result!.byScanner.inert).toEqual({ scanned: 4, fired: 0, stepsMatched: 0, problems: 0 });
  });
});

describe("who may write, run and read scanners", () => {
  it("refuses annotators everything but the player's markers, and researchers labelling blind the batch views", async () => {
    const annotator = await callerAs(ctx, await testUser(ctx, "annotator", "Scan Annotator"));
    for (const call of [
      annotator.scanners.list(),
      annotator.scanners.detail({ key: "captcha" }),
      annotator.scanners.run({ scannerKeys: ["captcha"], filter: {} }),
      annotator.scanners.create(scanner([rule("x")], { key: "mine" }) as never),
      annotator.scanners.remove({ key: "inert" }),
      annotator.scanners.job({ id: 1 }),
    ]) {
      expect((await errorOf(call)).code).toBe("FORBIDDEN");
    }
    const blindResearcher = await testUser(ctx, "researcher", "Blind Researcher");
    await createCampaign(
      ctx.db,
      { userId: researcher.userId, name: researcher.name, role: "researcher" },
      { name: "Researcher labels blind", trajectoryIds: [ids[3]!], annotatorsPerItem: 1, annotatorIds: [blindResearcher.userId] },
    );
    const api = await callerAs(ctx, blindResearcher);
    for (const call of [api.scanners.list(), api.scanners.detail({ key: "captcha" }), api.scanners.run({ scannerKeys: ["captcha"], filter: {} })]) {
      expect((await errorOf(call)).message).toMatch(/^You are labelling 1 trajectory blind/);
    }
    const marker = await errorOf(api.scanners.trajectory({ trajectoryId: ids[3]! }));
    expect([marker.code, marker.message.includes("SCANNER-FINDING")]).toEqual(["FORBIDDEN", false]);
    // While they label blind they browse like an annotator: outside their campaigns nothing opens either.
    expect((await errorOf(api.scanners.trajectory({ trajectoryId: ids[2]! }))).code).toBe("FORBIDDEN");
    expect((await errorOf(api.trajectories.list({ search: "scanner:captcha" }))).message).toMatch(/^search: scanner: search/);
  });

  it("keeps a run's job to whoever started it, and a researcher demoted after queuing scans nothing", async () => {
    const other = await callerAs(ctx, await testUser(ctx, "researcher", "Other Researcher"));
    const demoted = await testUser(ctx, "researcher", "Soon Annotator");
    const { jobId } = await (await callerAs(ctx, demoted)).scanners.run({ scannerKeys: ["captcha"], filter: {} });
    expect((await errorOf(other.scanners.job({ id: jobId }))).code).toBe("NOT_FOUND");
    const { users } = tablesOf(ctx.db);
    await ctx.db.update(users).set({ role: "annotator" }).where(eq(users.id, demoted.userId));
    await runWorker({ db: ctx.db, handlers: { [SCANNER_RUN_JOB_TYPE]: scannerRunJobHandler(ctx) }, concurrency: 1, untilIdle: true });
    const admin = await callerAs(ctx, await testUser(ctx, "admin", "Scan Admin"));
    const job = await admin.scanners.job({ id: jobId });
    expect(job.status).toBe("failed");
    expect(job.error).toMatch(/no longer a researcher/);
  });
});

describe("a researcher who starts labelling blind after queuing a run", () => {
  it("gets neither the run's findings from the worker nor its job", async () => {
    const late = await testUser(ctx, "researcher", "Late Blind Researcher");
    const api = await callerAs(ctx, late);
    const { jobId } = await api.scanners.run({ scannerKeys: ["captcha"], filter: { ids } });
    await createCampaign(
      ctx.db,
      { userId: researcher.userId, name: researcher.name, role: "researcher" },
      { name: "Late blind", trajectoryIds: [ids[2]!], annotatorsPerItem: 1, annotatorIds: [late.userId] },
    );
    expect((await errorOf(api.scanners.job({ id: jobId }))).message).toMatch(/^You are labelling 1 trajectory blind/);
    await runWorker({ db: ctx.db, handlers: { [SCANNER_RUN_JOB_TYPE]: scannerRunJobHandler(ctx) }, concurrency: 1, untilIdle: true });
    const admin = await callerAs(ctx, await testUser(ctx, "admin", "Late Scan Admin"));
    const job = await admin.scanners.job({ id: jobId });
    expect([job.status, job.result]).toEqual(["failed", null]);
    expect(job.error).toMatch(/labelling 1 trajectory blind; scanner runs open once you have labelled them/);
  });
});

describe("the blind over scanners' findings", () => {
  it("hides markers from an annotator of a blind campaign and refuses scanner: in their searches", async () => {
    const ann = await testUser(ctx, "annotator", "Blind Scan Annotator");
    await createCampaign(
      ctx.db,
      { userId: researcher.userId, name: researcher.name, role: "researcher" },
      { name: "Blind scan", trajectoryIds: [ids[0]!], annotatorsPerItem: 1, annotatorIds: [ann.userId] },
    );
    const api = await callerAs(ctx, ann);
    const e = await errorOf(api.scanners.trajectory({ trajectoryId: ids[0]! }));
    expect(e.code).toBe("FORBIDDEN");
    expect(e.message).not.toContain("SCANNER-FINDING");
    for (const search of ["scanner:captcha", "-scanner:captcha", "thought:x scanner:captcha"]) {
      expect((await errorOf(api.trajectories.list({ search }))).code).toBe("FORBIDDEN");
    }
  });

  it("shows them once they have labelled the trajectory in the blind campaign, and notes that they saw an evaluation", async () => {
    const ann = await testUser(ctx, "annotator", "Labelled Scan Annotator");
    const campaign = await createCampaign(
      ctx.db,
      { userId: researcher.userId, name: researcher.name, role: "researcher" },
      { name: "Blind, labelled", trajectoryIds: [ids[0]!], annotatorsPerItem: 1, annotatorIds: [ann.userId] },
    );
    const api = await callerAs(ctx, ann);
    expect((await errorOf(api.scanners.trajectory({ trajectoryId: ids[0]! }))).code).toBe("FORBIDDEN");
    const item = (await getItemByTrajectory(ctx.db, campaign.id, ids[0]!))!;
    await insertLabel(ctx.db, {
      campaignId: campaign.id,
      itemId: item.id,
      trajectoryId: ids[0]!,
      annotatorKey: userAnnotatorKey(ann.userId),
      annotatorName: ann.name,
      origin: "verdict",
      verdict: "failure",
      category: null,
    });
    expect(await hasRevealed(ctx.db, ann.userId, ids[0]!)).toBe(false);
    expect((await api.scanners.trajectory({ trajectoryId: ids[0]! })).matches.map((m) => m.matchedText)).toEqual(["SCANNER-FINDING"]);
    // A label they revise now is flagged as made after seeing an evaluation, as after seeing a judge's verdict.
    expect(await hasRevealed(ctx.db, ann.userId, ids[0]!)).toBe(true);
  });

  it("shows them where the campaign is not blind", async () => {
    const ann = await testUser(ctx, "annotator", "Open Scan Annotator");
    await createCampaign(
      ctx.db,
      { userId: researcher.userId, name: researcher.name, role: "researcher" },
      { name: "Open scan", trajectoryIds: [ids[1]!], annotatorsPerItem: 1, annotatorIds: [ann.userId], blind: false },
    );
    const api = await callerAs(ctx, ann);
    expect(await api.scanners.trajectory({ trajectoryId: ids[1]! })).toEqual({
      hidden: false,
      matches: [{ scannerKey: "captcha", scannerName: "CAPTCHA", stepIndex: 1, field: "element", matchedText: "SCANNER-FINDING" }],
    });
    // An annotator outside any campaign of that trajectory learns nothing of it.
    expect((await errorOf(api.scanners.trajectory({ trajectoryId: ids[2]! }))).code).toBe("FORBIDDEN");
  });
});
