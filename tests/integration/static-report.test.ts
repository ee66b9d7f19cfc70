/**
 * Shareable read-only reports: the selection's trajectories as static pages with a manifest of what was included and
 * withheld; annotators' names appear nowhere unless asked for; hostile trajectory text stays text; the agreement table
 * matches the analytics page's figures for the same trajectories. On both engines.
 */
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { tablesOf } from "../../db/database";
import { getItemByTrajectory, importedAnnotatorKey } from "../../db/repositories/annotation/campaigns";
import { insertLabel } from "../../db/repositories/annotation/labels";
import { reportCommand } from "../../server/cli/commands/report";
import type { CliIO } from "../../server/cli/types";
import { judgeAgreementList } from "../../server/services/analytics/evaluator-agreement";
import { buildReport, storeReportZip, writeReport, type ReportManifest } from "../../server/services/trajectories/static-report";
import { newReportKey, reportFilesFor } from "../../server/storage/report-files";
import yauzl from "yauzl";
import { makeActor } from "../helpers/annotation-fixture";
import { seedAnalyticsFixture, type AnalyticsFixture } from "../helpers/analytics-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedTrajectories } from "../helpers/judge-fixtures";
import { installationEnv } from "../helpers/processes";
import { closeSharedDatabases } from "../../server/context";

const HOSTILE_THOUGHT = 'I will close the tag </script><script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned=2">';
const HOSTILE_INTENT = "Buy <img src=x onerror=alert(1)> & report";
const SECRET_NAME = "Zelda Quixote";

/** Every text file of a written report, by path relative to its root. */
function textFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.parentPath.endsWith("images")) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, file), fs.readFileSync(file, "utf8"));
  }
  return out;
}

/** What a browser would hold in `window` after running a data script. */
function runDataScript(text: string): Record<string, unknown> {
  const window: Record<string, unknown> = {};
  vm.runInNewContext(text, { window });
  return window;
}

describeEachBackend("shareable reports", (backend) => {
  let ctx: TestContext;
  let fixture: AnalyticsFixture;
  let hostileId: number;
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
    fixture = await seedAnalyticsFixture(ctx.db);
    const [hostile] = await seedTrajectories(ctx, [{ steps: 3, intent: HOSTILE_INTENT, thoughts: true }], "report-hostile");
    hostileId = hostile!.id;
    const { steps } = tablesOf(ctx.db);
    await ctx.db.update(steps).set({ thought: HOSTILE_THOUGHT }).where(eq(steps.trajectoryId, hostileId));
    // A named annotator's label on a fixture trajectory, to look for afterwards.
    const trajectoryId = fixture.ids.T1!;
    const itemId = (await getItemByTrajectory(ctx.db, fixture.campaignId, trajectoryId))!.id;
    await insertLabel(ctx.db, {
      campaignId: fixture.campaignId,
      itemId,
      trajectoryId,
      annotatorKey: importedAnnotatorKey(SECRET_NAME),
      annotatorName: SECRET_NAME,
      origin: "import",
      verdict: "failure",
      category: null,
      firstFailingStep: null,
    });
  });
  afterEach(async () => {
    await closeSharedDatabases();
    await ctx.cleanup();
  });

  it("writes an index, a player per trajectory and a manifest; names withheld appear in no file; hostile text stays text", async () => {
    const researcher = await makeActor(ctx, "Rita", "researcher");
    const progress: number[] = [];
    const files = await buildReport(ctx.db, researcher, { selection: {}, labels: "all", judges: "all", agreement: true }, (done) => progress.push(done));
    const out = path.join(ctx.dir, "report");
    await writeReport(ctx.store, files, out);
    const written = textFiles(out);
    const manifest = JSON.parse(written.get("manifest.json")!) as ReportManifest;
    const total = Object.keys(fixture.ids).length + 1;
    expect(manifest).toMatchObject({
      format: "verdict-report",
      selection: { filter: "all trajectories", trajectories: total },
      counts: { trajectories: total, steps: expect.any(Number), screenshots: 3 },
      published: { labels: "all", judges: ["all"], annotatorNames: false, agreement: true },
    });
    expect(manifest.generator).toMatch(/^Verdict \d+\.\d+\.\d+/);
    expect(manifest.withheld.join(" ")).toContain("annotators' names");
    expect(progress).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    for (let n = 1; n <= total; n++) expect(written.has(`t/${n}.html`) && written.has(`data/t-${n}.js`)).toBe(true);
    expect(fs.readdirSync(path.join(out, "images"))).toHaveLength(3);

    // Names: the fixture's annotators and the one added are all pseudonyms.
    for (const [file, text] of written) {
      for (const name of [SECRET_NAME, "bob"]) expect(text.includes(name), `${name} in ${file}`).toBe(false);
    }
    const all = Object.values(Object.fromEntries(written)).join("\n");
    expect(all).toMatch(/annotator 4/);

    // Hostile text: escaped in the index, never a raw end of script in a data file, and read back unchanged.
    const index = written.get("index.html")!;
    expect(index).toContain("Buy &lt;img src=x onerror=alert(1)&gt; &amp; report");
    expect(index).not.toContain("<img src=x");
    const hostileN = manifest.trajectories.find((t) => t.task === HOSTILE_INTENT)!.n;
    const data = written.get(`data/t-${hostileN}.js`)!;
    expect(data).not.toMatch(/<\/script/i);
    const shown = runDataScript(data).VERDICT_TRAJECTORY as { task: string; steps: { thought: string; image: string }[] };
    expect(shown.task).toBe(HOSTILE_INTENT);
    expect(shown.steps.map((s) => s.thought)).toEqual([HOSTILE_THOUGHT, HOSTILE_THOUGHT, HOSTILE_THOUGHT]);
    for (const s of shown.steps) expect(fs.existsSync(path.join(out, s.image))).toBe(true);
    expect(written.get(`t/${hostileN}.html`)).not.toContain("<img src=x");
  });

  it("publishes names only when asked, and only the chosen judges and labels", async () => {
    const researcher = await makeActor(ctx, "Rita", "researcher");
    const named = await buildReport(ctx.db, researcher, { selection: { ids: [fixture.ids.T1!] }, labels: "all", judges: [], annotatorNames: true });
    expect(named.docs.map((d) => d.body).join("\n")).toContain(SECRET_NAME);
    expect(named.manifest.withheld.join(" ")).toContain("judge verdicts");
    const judgeOnly = await buildReport(ctx.db, researcher, { selection: { ids: [fixture.ids.T1!] }, labels: "none", judges: "all" });
    const trajectory = runDataScript(judgeOnly.docs.find((d) => d.name === "data/t-1.js")!.body).VERDICT_TRAJECTORY as { evaluations: { source: string }[] };
    expect(trajectory.evaluations.length).toBeGreaterThan(0);
    expect(trajectory.evaluations.every((e) => e.source.startsWith("Fixture judge") || e.source.startsWith("VisualWebArena"))).toBe(true);
  });

  it("the agreement table of a run matches the analytics page's κ for that run", async () => {
    const researcher = await makeActor(ctx, "Rita", "researcher");
    const runId = fixture.runIds.alpha;
    const files = await buildReport(ctx.db, researcher, { selection: { runId }, labels: "consolidated", judges: "all", agreement: true });
    const index = runDataScript(files.docs.find((d) => d.name === "data/index.js")!.body).VERDICT_REPORT as {
      agreement: { evaluator: string; n: number; kappa: number | null; agreement: number | null }[];
    };
    const analytics = await judgeAgreementList(ctx.db, { scope: { runId }, unparseable: "exclude" });
    const judgeK1 = analytics.judges.find((j) => j.info.identity.key === fixture.judgeKey && j.info.identity.k === "1")!;
    const row = index.agreement.find((r) => r.evaluator.startsWith("Fixture judge (k=1"))!;
    expect(row.n).toBe(judgeK1.stats.n);
    expect(row.kappa).toBeCloseTo(judgeK1.stats.kappa.kappa!, 10);
    expect(row.agreement).toBeCloseTo(judgeK1.stats.agreement!, 10);
  });

  it("streams the zip into the report files: every page and screenshot of the folder; a missing screenshot stores nothing", async () => {
    const researcher = await makeActor(ctx, "Rita", "researcher");
    const files = await buildReport(ctx.db, researcher, { selection: { ids: [fixture.ids.T1!, hostileId] }, labels: "consolidated", judges: "all" });
    const folder = path.join(ctx.dir, "as-folder");
    await writeReport(ctx.store, files, folder);
    const reports = reportFilesFor({ dataDir: ctx.dir });
    const key = newReportKey();
    const size = await storeReportZip(ctx.store, files, reports, key);
    const zipFile = path.join(ctx.dir, "reports", key);
    expect(fs.statSync(zipFile).size).toBe(size);
    const entries = await zipEntries(zipFile);
    const written = fs.readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect([...entries.keys()].sort()).toEqual(written.map((e) => path.relative(folder, path.join(e.parentPath, e.name))).sort());
    for (const [name, bytes] of entries) expect(bytes.equals(fs.readFileSync(path.join(folder, name)))).toBe(true);
    expect(files.images.size).toBeGreaterThan(0);

    const broken = { ...files, images: new Map([...files.images, ["f".repeat(64), "image/png"]]) };
    const lost = newReportKey();
    await expect(storeReportZip(ctx.store, broken, reports, lost)).rejects.toThrow(/Screenshot f{64} is missing/);
    expect(await reports.open(lost)).toBeNull();
  });

  it("the CLI writes a zip of a list filter", async () => {
    const out: string[] = [];
    await makeActor(ctx, "Ada", "admin");
    const io: CliIO = { stdout: (t) => out.push(t), stderr: () => {}, interactive: false, env: installationEnv(ctx), cwd: ctx.dir };
    const code = await reportCommand.run(["--out", "share.zip", "--filter", `run=${fixture.runIds.beta}`, "--json"], io);
    expect(code).toBe(0);
    const result = JSON.parse(out.join("")) as { out: string; trajectories: number };
    expect(result.trajectories).toBe(Object.values(fixture.ids).length - (await runSize(ctx, fixture.runIds.alpha)));
    expect(fs.readFileSync(path.join(ctx.dir, "share.zip")).subarray(0, 2).toString()).toBe("PK");
  });
});

async function runSize(ctx: TestContext, runId: number): Promise<number> {
  const { trajectories } = tablesOf(ctx.db);
  return (await ctx.db.select().from(trajectories).where(eq(trajectories.runId, runId))).length;
}

/** Every entry of a zip with its bytes. */
async function zipEntries(file: string): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((ok, fail) => yauzl.open(file, { lazyEntries: true }, (e, z) => (e ? fail(e) : ok(z))));
  const out = new Map<string, Buffer>();
  await new Promise<void>((ok, fail) => {
    zip.on("entry", (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (e, stream) => {
        if (e) return fail(e);
        const parts: Buffer[] = [];
        stream.on("data", (c: Buffer) => parts.push(c));
        stream.on("end", () => {
          out.set(entry.fileName, Buffer.concat(parts));
          zip.readEntry();
        });
      });
    });
    zip.on("end", () => ok());
    zip.on("error", fail);
    zip.readEntry();
  });
  return out;
}
