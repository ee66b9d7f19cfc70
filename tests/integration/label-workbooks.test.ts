/**
 * Label files as a study keeps them, through `npm run cli -- labels import`: an .xlsx workbook with one row per item
 * and one column pair per evaluator (the wide layout), a sheet chosen with --sheet, rows that match no trajectory
 * reported in full and the command exiting 3, and files that are not label tables named for what they are. The
 * campaign page's form takes the same workbook and mapping, read by a worker's job.
 */
import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { runCliInProcess } from "../helpers/cli";
import type { TestContext } from "../helpers/context";
import { callerWithRole } from "../helpers/trpc";
import { labelImportJobHandler } from "../../server/services/annotation/label-import-job";
import { LABEL_IMPORT_JOB_TYPE } from "../../server/services/annotation/label-imports";
import { runWorker } from "../../server/services/jobs/worker";
import type { LabelImportMapping } from "../../server/domain/annotation/label-io";

const environment = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "VERDICT_DATABASE_URL" && k !== "VERDICT_DB")) as NodeJS.ProcessEnv;
const root = path.resolve(__dirname, "..", "..");

describeEachBackend("labels import: workbooks, wide tables, unmatched rows", (backend) => {
  let ctx: TestContext;
  let dir: string;
  let ids: number[];

  async function cli(args: string[]) {
    const env = {
      ...environment,
      VERDICT_DATA_DIR: dir,
      VERDICT_DB: ctx.config.dbPath,
      ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : {}),
      VERDICT_AUTH_SECRET: "",
    };
    return runCliInProcess(args, env, root);
  }
  const write = (name: string, body: string | Uint8Array) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, body);
    return file;
  };

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-label-workbooks-");
    dir = ctx.dir;
    ids = await seedTrajectories(ctx.db, 4, { taskIds: ["Shop--1", "Shop--2", "Shop--3", "Shop--4"], model: "gpt-4o" });
    expect((await cli(["user", "add", "--email", "lead@example.org", "--name", "Lead", "--role", "admin", "--password", "lead-password-1"])).code).toBe(0);
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  /** The study's workbook: a notes sheet, and the evaluation sheet with three evaluators per row (Carol's verdicts under her own name). */
  async function studyWorkbook(): Promise<Uint8Array> {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet("Notes").addRows([["Evaluation of the fork's 4 tasks"], ["1 = success, 0 = failure"]]);
    const ws = wb.addWorksheet("Human evaluation");
    ws.addRow(["Task", "Evaluator1", "Overall1", "Evaluator2", "Overall2", "Carol"]);
    ws.addRow(["Shop--1", "Ann", 1, "Bob", 1, 1]);
    ws.addRow(["Shop--2", "Ann", 0, "Bob", 1, 0]);
    // Bob did not get to Shop--3.
    ws.addRow(["Shop--3", "Ann", 1, "Bob", null, 1]);
    ws.addRow(["Shop--4", "Ann", { formula: 'TEXT(0,"0")', result: "0" }, "Bob", 0, 0]);
    // A task this installation does not have.
    ws.addRow(["Shop--9", "Ann", 1, "Bob", 1, 1]);
    return new Uint8Array(await wb.xlsx.writeBuffer());
  }
  const wideMapping: LabelImportMapping = {
    taskId: "Task",
    verdictValues: { "1": "success", "0": "failure" },
    labels: [
      { annotator: "Evaluator1", verdict: "Overall1" },
      { annotator: "Evaluator2", verdict: "Overall2" },
      { annotatorName: "Carol", verdict: "Carol" },
    ],
  };

  it("reads a wide workbook sheet: one label per evaluator, empty pairs skipped with why, unmatched rows listed and exit 3", async () => {
    const book = write("study.xlsx", await studyWorkbook());
    const mapping = write("wide.json", JSON.stringify(wideMapping));

    const noSheet = await cli(["labels", "import", book, "--mapping", mapping, "--new-campaign", "Study"]);
    expect(noSheet.code).toBe(1);
    expect(noSheet.stderr).toContain(
      `study.xlsx: the workbook has 2 sheets with data ("Notes" (2 rows), "Human evaluation" (6 rows)); choose one with --sheet`,
    );

    // A dry run finds the unmatched row too, and exits as the real import will.
    const dry = await cli(["labels", "import", book, "--mapping", mapping, "--sheet", "Human evaluation", "--new-campaign", "Study", "--dry-run", "--json"]);
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(3);
    expect(JSON.parse(dry.stdout)).toMatchObject({ campaignId: null, created: 11, unmatchedCount: 1 });
    expect(JSON.parse((await cli(["labels", "campaigns", "--json"])).stdout).campaigns).toEqual([]);

    const imported = await cli(["labels", "import", book, "--mapping", mapping, "--sheet", "Human evaluation", "--new-campaign", "Study", "--json"]);
    expect(imported.code).toBe(3);
    const report = JSON.parse(imported.stdout);
    expect(report).toMatchObject({
      sheet: "Human evaluation",
      rows: 5,
      labels: 14,
      created: 11,
      skipped: 1,
      unmatchedCount: 1,
      unmatched: [{ line: 6, reason: `no trajectory of task "Shop--9"` }],
      itemsAdded: 4,
      annotators: ["Ann", "Bob", "Carol"],
    });

    // What landed, read back through the export.
    const out = path.join(dir, "study-labels.jsonl");
    expect((await cli(["labels", "export", String(report.campaignId), "--format", "jsonl", "--out", out, "--json"])).code).toBe(0);
    const labels = fs
      .readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((r) => r.kind === "annotation")
      .map((r) => `${r.task_id} ${r.annotator_name} ${r.verdict}`)
      .sort();
    expect(labels).toEqual([
      "Shop--1 Ann success",
      "Shop--1 Bob success",
      "Shop--1 Carol success",
      "Shop--2 Ann failure",
      "Shop--2 Bob success",
      "Shop--2 Carol failure",
      "Shop--3 Ann success",
      "Shop--3 Carol success",
      "Shop--4 Ann failure",
      "Shop--4 Bob failure",
      "Shop--4 Carol failure",
    ]);
    expect(ids).toHaveLength(4);

    // The same workbook again changes nothing; the people-readable summary says which sheet and which row.
    const again = await cli(["labels", "import", book, "--mapping", mapping, "--sheet", "2", "--campaign", String(report.campaignId)]);
    expect(again.code).toBe(3);
    expect(again.stdout).toContain(`sheet "Human evaluation"`);
    expect(again.stdout).toContain("rows 5 (14 labels): created 0, updated 0, unchanged 11, skipped 1, unmatched rows 1");
    expect(again.stdout).toContain(`line 6: no trajectory of task "Shop--9"`);
  }, 300_000);

  it("exits 3 with every unmatched CSV row in the JSON report, and 0 when all rows land", async () => {
    const rows = ["annotator,task,verdict", "Dee,Shop--1,success", ...Array.from({ length: 60 }, (_, i) => `Dee,Missing--${i + 1},failure`)];
    const csv = write("long.csv", rows.join("\n") + "\n");
    const mapping = write("long.json", JSON.stringify({ annotator: "annotator", verdict: "verdict", taskId: "task" }));
    const partly = await cli(["labels", "import", csv, "--mapping", mapping, "--new-campaign", "Long", "--json"]);
    expect(partly.code).toBe(3);
    const report = JSON.parse(partly.stdout);
    expect(report).toMatchObject({ created: 1, unmatchedCount: 60 });
    // All of them, not the first 50 the dashboard shows.
    expect(report.unmatched).toHaveLength(60);
    expect(report.unmatched.at(-1)).toEqual({ line: 62, reason: `no trajectory of task "Missing--60"` });

    const whole = write("whole.csv", "annotator,task,verdict\nEve,Shop--2,failure\n");
    expect((await cli(["labels", "import", whole, "--mapping", mapping, "--campaign", String(report.campaignId), "--json"])).code).toBe(0);
  }, 300_000);

  it("names a file that is not a label table for what it is, and writes nothing", async () => {
    const mapping = write("names.json", JSON.stringify({ annotator: "a", verdict: "v", taskId: "t" }));
    const xls = write("old.xls", new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]));
    const refused = await cli(["labels", "import", xls, "--mapping", mapping, "--new-campaign", "Old"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "old.xls is an Excel 97–2003 workbook (.xls) or another old Office file, which Verdict cannot read labels from; save it as .xlsx or as CSV (UTF-8) and import that",
    );
    // A PDF named .csv is still a PDF.
    const pdf = write("labels.csv", "%PDF-1.4\n%âãÏÓ\n");
    expect((await cli(["labels", "import", pdf, "--mapping", mapping, "--new-campaign", "Pdf"])).stderr).toContain("labels.csv is a PDF document");
    // --sheet on a CSV is a mistake worth saying.
    const csv = write("plain.csv", "a,v,t\nX,success,Shop--1\n");
    expect((await cli(["labels", "import", csv, "--mapping", mapping, "--sheet", "1", "--new-campaign", "Plain"])).stderr).toContain(
      "plain.csv is a text file, not a workbook",
    );
    // The format-named import points a workbook to the command that reads it.
    const book = write("study2.xlsx", await studyWorkbook());
    const byFormat = await cli(["labels", "import", book, "--format", "agentrewardbench", "--new-campaign", "Fmt"]);
    expect(byFormat.code).toBe(1);
    expect(byFormat.stderr).toContain("is an .xlsx workbook; read it with `labels import");
    const names = JSON.parse((await cli(["labels", "campaigns", "--json"])).stdout).campaigns.map((c: { name: string }) => c.name);
    expect(names).not.toContain("Old");
    expect(names).not.toContain("Pdf");
    expect(names).not.toContain("Fmt");
  }, 300_000);

  it("refuses a chosen sheet, or a CSV, that has its header and no rows: nothing to import is said, not reported as done", async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet("Human evaluation").addRow(["Task", "Evaluator1", "Overall1", "Evaluator2", "Overall2", "Carol"]);
    const book = write("header-only.xlsx", new Uint8Array(await wb.xlsx.writeBuffer()));
    const mapping = write("wide-empty.json", JSON.stringify(wideMapping));
    for (const dryRun of [["--dry-run"], []]) {
      const run = await cli(["labels", "import", book, "--mapping", mapping, "--sheet", "1", "--new-campaign", "Empty sheet", ...dryRun]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`header-only.xlsx (sheet "Human evaluation") has a header row and no rows below it: there is nothing to import`);
    }
    const csv = write("header-only.csv", "annotator,task,verdict\n");
    const csvMapping = write("header-only.json", JSON.stringify({ annotator: "annotator", verdict: "verdict", taskId: "task" }));
    const fromCsv = await cli(["labels", "import", csv, "--mapping", csvMapping, "--new-campaign", "Empty csv"]);
    expect(fromCsv.code).toBe(1);
    expect(fromCsv.stderr).toContain("header-only.csv has a header row and no rows below it");
    const names = JSON.parse((await cli(["labels", "campaigns", "--json"])).stdout).campaigns.map((c: { name: string }) => c.name);
    expect(names).not.toContain("Empty sheet");
    expect(names).not.toContain("Empty csv");
  }, 300_000);

  it("takes the workbook from the campaign page: a worker reads the chosen sheet with the wide mapping, as the command line does", async () => {
    const researcher = await callerWithRole(ctx, "researcher");
    const xlsxBase64 = Buffer.from(await studyWorkbook()).toString("base64");
    let campaignId = 0;
    const importThroughJob = async (input: { sheet?: string; dryRun?: boolean }) => {
      const campaign = campaignId ? { id: campaignId } : { name: "From the page", annotatorsPerItem: 3 };
      const { jobId } = await researcher.campaigns.importLabels({ xlsxBase64, source: "study.xlsx", mapping: wideMapping, campaign, ...input });
      await runWorker({ db: ctx.db, handlers: { [LABEL_IMPORT_JOB_TYPE]: labelImportJobHandler(ctx) }, concurrency: 1, untilIdle: true });
      return await researcher.campaigns.importLabelsJob({ id: jobId });
    };

    // Two sheets hold data: the page's own field is named.
    const unchosen = await importThroughJob({});
    expect(unchosen.status).toBe("failed");
    expect(unchosen.error).toContain(
      `study.xlsx: the workbook has 2 sheets with data ("Notes" (2 rows), "Human evaluation" (6 rows)); choose one in the Sheet field`,
    );

    const dry = await importThroughJob({ sheet: "Human evaluation", dryRun: true });
    expect(dry.status, dry.error ?? "").toBe("succeeded");
    expect(dry.result).toMatchObject({ sheet: "Human evaluation", rows: 5, created: 11, skipped: 1, unmatchedCount: 1 });
    const imported = await importThroughJob({ sheet: "human evaluation" });
    campaignId = imported.result!.campaignId!;
    expect(campaignId).toBeGreaterThan(0);
    expect(imported.result).toMatchObject({
      sheet: "Human evaluation",
      created: 11,
      unchanged: 0,
      unmatched: [{ line: 6, reason: `no trajectory of task "Shop--9"` }],
    });
    const again = await importThroughJob({ sheet: "2" });
    expect(again.result).toMatchObject({ created: 0, updated: 0, unchanged: 11 });

    // A sheet is only for workbooks, and a CSV renamed .xlsx is no workbook.
    await expect(
      researcher.campaigns.importLabels({ csv: "a,b\n", sheet: "1", source: "plain.csv", mapping: wideMapping, campaign: { id: campaignId } }),
    ).rejects.toThrow(/a sheet is chosen only for a workbook/);
    const renamed = await researcher.campaigns.importLabels({
      xlsxBase64: Buffer.from("Task,Evaluator1\n").toString("base64"),
      source: "renamed.xlsx",
      mapping: wideMapping,
      campaign: { id: campaignId },
    });
    await runWorker({ db: ctx.db, handlers: { [LABEL_IMPORT_JOB_TYPE]: labelImportJobHandler(ctx) }, concurrency: 1, untilIdle: true });
    const refused = await researcher.campaigns.importLabelsJob({ id: renamed.jobId });
    expect(refused.status).toBe("failed");
    expect(refused.error).toContain("renamed.xlsx: not a readable .xlsx workbook");
    // An annotator cannot import at all.
    const annotator = await callerWithRole(ctx, "annotator");
    await expect(annotator.campaigns.importLabels({ xlsxBase64, source: "study.xlsx", mapping: wideMapping, campaign: { id: campaignId } })).rejects.toThrow(
      /FORBIDDEN|researcher/i,
    );
  }, 300_000);
});
