/**
 * Behaviour of the procedures no other test called with real input (the test audit's list): each through the tRPC
 * router as the role that uses it, checked against what it stored or returns, plus a malformed input (zod) and a
 * caller without the role.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { goldItemsOfCampaign } from "../../db/repositories/annotation/quality";
import { campaignMemberList, getItemByTrajectory } from "../../db/repositories/annotation/campaigns";
import type { createCaller } from "../../server/api/root";
import { LABEL_IMPORT_PRESETS } from "../../server/domain/annotation/label-io";
import { IMPORTERS } from "../../server/importers/registry";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { LOCAL_JUDGE_ENV } from "../helpers/judge-fixtures";
import { callerAs, testUser } from "../helpers/trpc";

type Caller = ReturnType<typeof createCaller>;

describeEachBackend("procedures with no other behaviour test", (backend) => {
  let ctx: TestContext;
  let admin: Caller;
  let researcher: Caller;
  let annotator: Caller;
  let annotatorId: string;
  let reviewerId: string;
  let ids: number[];

  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-procedures-");
    ids = await seedTrajectories(ctx.db, 4);
    admin = await callerAs(ctx, await testUser(ctx, "admin"));
    researcher = await callerAs(ctx, await testUser(ctx, "researcher"));
    const annotatorUser = await testUser(ctx, "annotator", "Procedure Annotator");
    annotatorId = annotatorUser.userId;
    annotator = await callerAs(ctx, annotatorUser);
    reviewerId = (await testUser(ctx, "annotator", "Procedure Reviewer")).userId;
  });
  afterEach(async () => ctx?.cleanup());

  const campaign = (trajectoryIds: number[], name = "Procedures") =>
    researcher.campaigns.create({ name, trajectoryIds, annotatorsPerItem: 1, annotatorIds: [annotatorId] });

  it("campaigns.addTrajectories adds only what is not there yet, by ids or by filter", async () => {
    const c = await campaign(ids.slice(0, 2));
    expect(await researcher.campaigns.addTrajectories({ id: c.id, trajectoryIds: [ids[1]!, ids[2]!] })).toEqual({ added: 1 });
    expect(await getItemByTrajectory(ctx.db, c.id, ids[2]!)).toBeDefined();
    // A filter matching every trajectory adds the one left.
    expect(await researcher.campaigns.addTrajectories({ id: c.id, filter: {} })).toEqual({ added: 1 });
    expect(await getItemByTrajectory(ctx.db, c.id, ids[3]!)).toBeDefined();
    expect((await researcher.analytics.campaigns()).find((x) => x.id === c.id)?.items).toBe(4);
    await expect(researcher.campaigns.addTrajectories({ id: c.id, trajectoryIds: [0] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(researcher.campaigns.addTrajectories({ id: 999_999, trajectoryIds: [ids[0]!] })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(annotator.campaigns.addTrajectories({ id: c.id, trajectoryIds: [ids[0]!] })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("campaigns.setQaReviewers adds and removes designated reviewers, annotators only", async () => {
    const c = await campaign(ids);
    expect(await researcher.campaigns.setQaReviewers({ id: c.id, add: [reviewerId, annotatorId] })).toEqual({ added: 2, removed: 0 });
    expect((await campaignMemberList(ctx.db, "qaReviewers", c.id)).map((r) => r.userId).sort()).toEqual([annotatorId, reviewerId].sort());
    expect(await researcher.campaigns.setQaReviewers({ id: c.id, remove: [annotatorId] })).toEqual({ added: 0, removed: 1 });
    expect((await campaignMemberList(ctx.db, "qaReviewers", c.id)).map((r) => r.userId)).toEqual([reviewerId]);
    await expect(researcher.campaigns.setQaReviewers({ id: c.id, add: ["no-such-user"] })).rejects.toThrow(/no-such-user/);
    await expect(researcher.campaigns.setQaReviewers({ id: c.id, add: "x" as unknown as string[] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(annotator.campaigns.setQaReviewers({ id: c.id, add: [reviewerId] })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("accounts.cancelInvitation closes an open invitation once; accounts.directory lists accounts for researchers", async () => {
    const invitation = await admin.accounts.invite({ email: "cancel.me@example.test", role: "annotator" });
    expect((await admin.accounts.list()).invitations.map((i) => i.email)).toContain("cancel.me@example.test");
    await admin.accounts.cancelInvitation({ id: invitation.id });
    expect((await admin.accounts.list()).invitations.map((i) => i.email)).not.toContain("cancel.me@example.test");
    await expect(admin.accounts.cancelInvitation({ id: invitation.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(admin.accounts.cancelInvitation({ id: 0 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(researcher.accounts.cancelInvitation({ id: invitation.id })).rejects.toMatchObject({ code: "FORBIDDEN" });

    const directory = await researcher.accounts.directory();
    expect(directory.map((u) => u.name)).toEqual(expect.arrayContaining(["Procedure Annotator", "Procedure Reviewer", "Test researcher", "Test admin"]));
    expect(Object.keys(directory[0]!).sort()).toEqual(["email", "id", "name", "role"]);
    await expect(annotator.accounts.directory()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("accounts.renewInvitation replaces a lost link: the new one opens the invitation, the old one no longer does (review 2, #20)", async () => {
    const first = await admin.accounts.invite({ email: "lost.link@example.test", role: "researcher" });
    const renewed = await admin.accounts.renewInvitation({ id: first.id });
    expect(renewed).toMatchObject({ email: "lost.link@example.test", role: "researcher" });
    expect(renewed.token).not.toBe(first.token);
    const open = (await admin.accounts.list()).invitations.filter((i) => i.email === "lost.link@example.test");
    expect(open.map((i) => i.id)).toEqual([renewed.id]);
    expect(await annotator.accounts.invitation({ token: renewed.token })).toMatchObject({ email: "lost.link@example.test", role: "researcher" });
    await expect(annotator.accounts.invitation({ token: first.token })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(admin.accounts.renewInvitation({ id: first.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(researcher.accounts.renewInvitation({ id: renewed.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("quality.unmarkGold removes a gold answer and says whether there was one", async () => {
    const c = await campaign(ids);
    await researcher.quality.markGold({ campaignId: c.id, trajectoryId: ids[0]!, verdict: "success" });
    await researcher.quality.markGold({ campaignId: c.id, trajectoryId: ids[1]!, verdict: "failure", category: "other" });
    expect(await researcher.quality.unmarkGold({ campaignId: c.id, trajectoryId: ids[0]! })).toEqual({ removed: true });
    expect((await goldItemsOfCampaign(ctx.db, c.id)).map((g) => g.trajectoryId)).toEqual([ids[1]]);
    expect(await researcher.quality.unmarkGold({ campaignId: c.id, trajectoryId: ids[0]! })).toEqual({ removed: false });
    const outside = (await seedTrajectories(ctx.db, 1, { taskIds: ["outside-1"], agentName: "other" }))[0]!;
    await expect(researcher.quality.unmarkGold({ campaignId: c.id, trajectoryId: outside })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(researcher.quality.unmarkGold({ campaignId: c.id, trajectoryId: -1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(annotator.quality.unmarkGold({ campaignId: c.id, trajectoryId: ids[1]! })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await goldItemsOfCampaign(ctx.db, c.id)).toHaveLength(1);
  });

  it("deploymentProfiles.byId, update and delete, for admins only", async () => {
    const created = await admin.deploymentProfiles.create({
      name: "lab",
      sites: [
        {
          placeholder: "__SHOPPING__",
          url: "http://shop.lab.example:7770/",
          login: {
            kind: "recipe",
            url: "http://shop.lab.example:7770/login",
            usernameSelector: "#u",
            passwordSelector: "#p",
            username: "agent",
            password: "s3cret",
          },
        },
      ],
    });
    const shown = await admin.deploymentProfiles.byId({ id: created.id });
    expect(shown).toMatchObject({
      id: created.id,
      name: "lab",
      description: null,
      sites: [{ placeholder: "__SHOPPING__", login: { kind: "recipe", username: "agent", hasPassword: true } }],
    });
    expect(JSON.stringify(shown)).not.toContain("s3cret");

    // An update without the password keeps the stored one; the name stays.
    const updated = await admin.deploymentProfiles.update({
      id: created.id,
      profile: {
        name: "lab",
        description: "Shop and forum",
        sites: [
          {
            placeholder: "__SHOPPING__",
            url: "http://shop.lab.example:7770/",
            login: { kind: "recipe", url: "http://shop.lab.example:7770/login", usernameSelector: "#u", passwordSelector: "#p", username: "agent2" },
          },
          { placeholder: "__REDDIT__", url: "http://forum.lab.example:9999/" },
        ],
      },
    });
    expect(updated).toMatchObject({
      description: "Shop and forum",
      sites: [{ login: { username: "agent2", hasPassword: true } }, { placeholder: "__REDDIT__", login: null }],
    });
    expect(updated.destinations.sort()).toEqual(["forum.lab.example:9999", "shop.lab.example:7770"]);
    await expect(
      admin.deploymentProfiles.update({
        id: created.id,
        profile: { name: "renamed", sites: [{ placeholder: "__REDDIT__", url: "http://forum.lab.example:9999/" }] },
      }),
    ).rejects.toThrow(/keeps its name \("lab"\)/);
    await expect(admin.deploymentProfiles.update({ id: created.id, profile: { name: "lab", sites: [] } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(researcher.deploymentProfiles.byId({ id: created.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(researcher.deploymentProfiles.delete({ id: created.id })).rejects.toMatchObject({ code: "FORBIDDEN" });

    expect(await admin.deploymentProfiles.delete({ id: created.id })).toEqual({ deleted: created.id });
    await expect(admin.deploymentProfiles.byId({ id: created.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(admin.deploymentProfiles.delete({ id: created.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await admin.deploymentProfiles.list()).toEqual([]);
  });

  it("judge.configs.remove deletes a configuration", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, LOCAL_JUDGE_ENV);
    try {
      const keep = await researcher.judge.configs.create({ name: "keep", baseUrl: "http://127.0.0.1:9999/v1", model: "m" });
      const gone = await researcher.judge.configs.create({ name: "gone", baseUrl: "http://127.0.0.1:9999/v1", model: "m" });
      expect(await researcher.judge.configs.remove({ id: gone.id })).toEqual({ removed: gone.id });
      await expect(researcher.judge.configs.byId({ id: gone.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect((await researcher.judge.configs.list()).map((c) => c.name)).toEqual(["keep"]);
      expect((await researcher.judge.configs.byId({ id: keep.id })).name).toBe("keep");
      await expect(researcher.judge.configs.remove({ id: 1.5 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(annotator.judge.configs.remove({ id: keep.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    } finally {
      process.env = saved;
    }
  });

  it("analytics.campaigns lists every campaign with its status, k and item count", async () => {
    expect(await researcher.analytics.campaigns()).toEqual([]);
    const a = await campaign(ids.slice(0, 3), "First");
    const b = await researcher.campaigns.create({ name: "Second", trajectoryIds: [ids[3]!], annotatorsPerItem: 2, annotatorIds: [annotatorId, reviewerId] });
    const list = await researcher.analytics.campaigns();
    expect(list.map((c) => [c.id, c.name, c.status, c.annotatorsPerItem, c.items]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [a.id, "First", "active", 1, 3],
      [b.id, "Second", "active", 2, 1],
    ]);
    await expect(annotator.analytics.campaigns()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("campaigns.importPresets lists the label import presets with their mappings", async () => {
    const presets = await researcher.campaigns.importPresets();
    expect(presets.map((p) => p.name).sort()).toEqual(Object.keys(LABEL_IMPORT_PRESETS).sort());
    const arb = presets.find((p) => p.name === "agentrewardbench")!;
    expect(arb.description).toMatch(/AgentRewardBench annotations\.csv/);
    expect(arb.mapping).toMatchObject({ annotator: "annotator_name", verdict: "trajectory_success" });
    await expect(annotator.campaigns.importPresets()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("imports.formOptions: every importer and the limits; the server folder only for admins", async () => {
    const asResearcher = await researcher.imports.formOptions();
    expect(asResearcher.formats.map((f) => f.format)).toEqual(IMPORTERS.map((i) => i.format));
    expect(asResearcher.formats.every((f) => f.description.length > 0)).toBe(true);
    expect(asResearcher.maxUploadBytes).toBeGreaterThan(0);
    expect(asResearcher.zip).toEqual({ maxEntries: expect.any(Number), maxTotalBytes: expect.any(Number), maxRatio: expect.any(Number) });
    expect(asResearcher).toMatchObject({ importRoot: null, canImportServerPaths: false });
    ctx.config.importRoot = "/srv/verdict-imports";
    try {
      expect(await admin.imports.formOptions()).toMatchObject({ importRoot: "/srv/verdict-imports", canImportServerPaths: true });
      expect((await researcher.imports.formOptions()).importRoot).toBeNull();
    } finally {
      ctx.config.importRoot = undefined;
    }
    await expect(annotator.imports.formOptions()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
