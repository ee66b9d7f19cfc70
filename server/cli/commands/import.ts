import fs from "node:fs";
import fsp from "node:fs/promises";
import { importLimitsFromEnv } from "../../config";
import { getAppContext, type AppContext } from "../../context";
import {
  cliUnpackDir,
  getImporter,
  ImportError,
  IMPORTERS,
  ImportRefusedError,
  isZipFile,
  openZipSource,
  runImport,
  uploadWhere,
  zipPathNamer,
  type ImportReport,
} from "../../services/imports";
import { judgeRunConsistencies, type JudgeConsistencyView } from "../../services/analytics";
import { warmingSettled } from "../../services/images";
import { warmFirstViews } from "../../services/trajectory-views";
import { UsageError, flagBool, flagString, parseArgs, userPath } from "../args";
import { createProgressBar } from "../progress";
import type { CliCommand, CliIO } from "../types";

/**
 * Exit codes of `import` (documented in docs/guide/importing.md, "Output and exit codes"):
 * 0 everything readable was imported (trajectories with repair warnings count as imported),
 * 3 some trajectories were skipped, the rest imported,
 * 1 nothing importable, `--strict` refusal, or another error (nothing written by this import),
 * 2 bad usage.
 */
export const IMPORT_EXIT = { ok: 0, error: 1, usage: 2, someSkipped: 3 } as const;

function reportJson(report: ImportReport, consistency: JudgeConsistencyView[]) {
  return {
    created: report.created,
    updated: report.updated,
    unchanged: report.unchanged,
    trajectories: report.trajectories.map((t) => ({
      id: t.id,
      runId: t.runId,
      externalTaskId: t.externalTaskId,
      sourcePath: t.sourcePath,
      steps: t.steps,
      screenshots: t.screenshots,
      rawScreenshots: t.rawScreenshots,
      finalAnswer: t.finalAnswer,
      status: t.status,
      warnings: t.warnings,
    })),
    skipped: report.skipped,
    warnings: report.warnings,
    tasks: report.tasks,
    verdicts: report.verdicts,
    evaluatorLogs: report.evaluatorLogs,
    judgeConsistency: consistency,
    sources: report.sources,
    format: report.format,
    screenshotsAdded: report.screenshotsAdded,
  };
}

const pct = (x: number | null) => (x === null ? "—" : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? "undefined" : x.toFixed(3));

/** "30 success, 11 failure" in a fixed order. */
function verdictCounts(counts: Record<string, number>): string {
  const order = ["success", "failure", "unparseable", "not_evaluable"];
  const keys = [...order.filter((k) => counts[k]), ...Object.keys(counts).filter((k) => !order.includes(k) && counts[k])];
  return keys.map((k) => `${counts[k]} ${k.replace("_", " ")}`).join(", ") || "none";
}

/** Each evaluator log: how many of its blocks landed, their verdicts, and the blocks that did not and why. */
function logLines(report: ImportReport): string[] {
  const lines: string[] = [];
  for (const log of report.evaluatorLogs) {
    const run = log.run ? ` ${log.run.replace(/^run:/, "run ")}` : "";
    lines.push(`    ${log.file}: ${log.evaluator}${run}: ${log.matched} of ${log.blocks} blocks matched (${verdictCounts(log.verdicts)})`);
    for (const u of log.unmatched.slice(0, 10)) lines.push(`      not matched: ${u.block}: ${u.reason}`);
    if (log.unmatched.length > 10) lines.push(`      … and ${log.unmatched.length - 10} more not matched (all in --json)`);
  }
  return lines;
}

function humanReport(report: ImportReport, input: string, secs: string, consistency: JudgeConsistencyView[]): string {
  const n = report.trajectories.length;
  const lines = [`Imported ${input} as ${report.format} in ${secs}s`];
  const t = report.tasks;
  if (n || t.created + t.updated + t.unchanged === 0) {
    lines.push(`  trajectories: ${n} (${report.created} created, ${report.updated} updated, ${report.unchanged} unchanged)`);
  }
  if (t.created + t.updated + t.unchanged) lines.push(`  tasks: ${t.created} created, ${t.updated} updated, ${t.unchanged} unchanged`);
  lines.push(`  screenshots added: ${report.screenshotsAdded}`);
  if (report.verdicts || report.evaluatorLogs.length) {
    const taken = report.evaluatorLogs.reduce((n, l) => n + l.matched, 0);
    lines.push(
      `  evaluator verdicts stored: ${report.verdicts}${report.evaluatorLogs.length ? `; evaluator logs: ${report.evaluatorLogs.length} (${taken} verdicts matched a trajectory)` : ""}`,
    );
    lines.push(...logLines(report));
  }
  for (const c of consistency) {
    const pairs = c.pairs
      .map(
        (p) => `${p.a.replace(/^run:/, "")} vs ${p.b.replace(/^run:/, "")}: κ ${num(p.kappa)}${p.kappa === null && p.kappaReason ? ` (${p.kappaReason})` : ""}`,
      )
      .join("; ");
    lines.push(
      `  run-to-run consistency of ${c.evaluatorName}${c.k ? ` (k = ${c.k})` : ""}: ${c.runs.length} runs, ${c.items} trajectories judged by all, flip rate ${pct(c.flipRate)} (${c.flips}), Fleiss κ ${num(c.fleissKappa)}; ${pairs}`,
    );
  }
  for (const s of report.sources) lines.push(`  read: ${s.path} (${s.role})`);
  if (report.warnings.length) {
    lines.push(`  warnings: ${report.warnings.length} (imported with a repair)`);
    for (const w of report.warnings) lines.push(`    ${w.path}: ${w.message}`);
  }
  if (report.skipped.length) {
    lines.push(`  skipped: ${report.skipped.length} (not imported)`);
    for (const s of report.skipped) lines.push(`    ${s.path}: ${s.reason}`);
  }
  if (n && report.created + report.updated === 0 && t.created + t.updated === 0 && !report.skipped.length) {
    lines.push("  Nothing changed: this source was already imported.");
  }
  return lines.join("\n") + "\n";
}

/**
 * A zip of any supported format, read as the Import page reads an upload (services/imports/zip-source.ts): a bundle
 * in place, anything else unpacked into the data folder and imported from there. Paths in the report and in errors
 * name the files as "<zip>: <path inside it>".
 */
async function zipSourceOf(ctx: AppContext, file: string, typed: string, format: string | undefined) {
  const plain = {
    input: file,
    unpacked: null as string | null,
    where: {} as ReturnType<typeof uploadWhere> | Record<string, never>,
    named: (t: string) => t,
    namedError: (e: unknown) => e,
    nameReport: (_r: ImportReport) => {},
  };
  if (!(await fsp.stat(file).catch(() => null))?.isFile() || !(await isZipFile(file))) return plain;
  const importer = format && format !== "auto" ? getImporter(format) : null;
  const dir = await cliUnpackDir(ctx.config.dataDir, file);
  const zip = await openZipSource(file, dir, { limits: ctx.config.importLimits ?? importLimitsFromEnv({}), importer });
  if (!zip.unpacked) return plain;
  const named = zipPathNamer(zip.unpacked, file, typed);
  return {
    input: zip.input,
    unpacked: zip.unpacked,
    // Read alone and named as the zip, as an upload is: the stored Path is "<zip>: <path inside it>".
    where: uploadWhere(zip.unpacked, typed),
    named,
    namedError: (e: unknown) => {
      if (e instanceof ImportRefusedError) {
        const rename = (list: { path: string }[]) => list.map((x) => ({ ...x, path: named(x.path) }));
        return new ImportRefusedError(named(e.file), named(e.problem), rename(e.skipped) as typeof e.skipped, rename(e.warnings) as typeof e.warnings);
      }
      if (e instanceof ImportError) return new ImportError(named(e.file), named(e.problem));
      return e;
    },
    nameReport: (r: ImportReport) => {
      r.source = typed;
      for (const x of r.skipped) {
        x.path = named(x.path);
        x.reason = named(x.reason);
      }
      for (const x of r.warnings) {
        x.path = named(x.path);
        x.message = named(x.message);
      }
      for (const t of r.trajectories) {
        t.sourcePath = named(t.sourcePath);
        t.warnings = t.warnings.map(named);
      }
    },
  };
}

const usage = `npm run cli -- import <path> [--format auto|${IMPORTERS.map((i) => i.format).join("|")}] [--tasks FILE] [--eval-log FILE]… [--screenshots DIR] [--strict] [--no-warm] [--json]`;

export const importCommand: CliCommand = {
  name: "import",
  summary: "import trajectories or task sets from a folder, a file or a .zip of either (format sniffed); exit 3 when some were skipped",
  usage,
  async run(argv, io) {
    // --json is honoured even when the rest of the line is wrong: scripts always get one JSON object.
    const json = argv.includes("--json");
    try {
      return await importMain(argv, io, json);
    } catch (e) {
      const message = (e as Error).message;
      const code = e instanceof UsageError ? IMPORT_EXIT.usage : IMPORT_EXIT.error;
      if (json) {
        const extra = e instanceof ImportRefusedError ? { skipped: e.skipped, warnings: e.warnings } : {};
        io.stdout(JSON.stringify({ error: message, exitCode: code, ...extra }) + "\n");
      }
      if (e instanceof UsageError) io.stderr(`Error: ${message}\nUsage: ${usage}\n`);
      else {
        io.stderr(`Error: ${message}\n`);
        if (e instanceof ImportRefusedError && e.skipped.length > 1) {
          for (const s of e.skipped) io.stderr(`  skipped ${s.path}: ${s.reason}\n`);
        }
        if (io.stackTraces) io.stderr(`${(e as Error).stack}\n`);
      }
      return code;
    }
  },
};

async function importMain(argv: string[], io: CliIO, json: boolean): Promise<number> {
  const args = parseArgs(argv, { valueFlags: ["format", "tasks", "eval-log", "screenshots"], boolFlags: ["json", "strict", "no-warm"] });
  const [input, ...extra] = args.positionals;
  if (!input) throw new UsageError("missing <path> to import");
  if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  const evalLogs = args.repeated.get("eval-log")?.map((log) => {
    const file = userPath(io, log);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new UsageError(`--eval-log ${log}: no such file`);
    return file;
  });
  const tasksFlag = flagString(args, "tasks");
  const format = flagString(args, "format");
  const screenshotsFlag = flagString(args, "screenshots");
  const screenshotsDir = screenshotsFlag === undefined ? undefined : userPath(io, screenshotsFlag);
  if (screenshotsDir !== undefined && !(fs.existsSync(screenshotsDir) && fs.statSync(screenshotsDir).isDirectory()))
    throw new UsageError(`--screenshots ${screenshotsFlag}: no such folder`);
  const ctx = getAppContext(io.env);
  const source = await zipSourceOf(ctx, userPath(io, input), input, format);
  const bar = createProgressBar(io, "Importing", { enabled: !json });
  const started = Date.now();
  let report;
  try {
    report = await runImport(ctx, {
      path: source.input,
      format,
      tasksFile: tasksFlag === undefined ? undefined : userPath(io, tasksFlag),
      screenshotsDir,
      evalLogs,
      ...source.where,
      strict: flagBool(args, "strict"),
      onProgress: (p) => bar.update(p.done, p.total, source.named(p.label)),
    });
  } catch (e) {
    throw source.namedError(e);
  } finally {
    bar.finish();
    if (source.unpacked) await fsp.rm(source.unpacked, { recursive: true, force: true });
  }
  source.nameReport(report);
  // The first view of each new or changed trajectory is encoded now, so opening one right away is instant; the
  // process waits for it (a server-side import does the same in the background).
  const fresh = report.trajectories.filter((t) => t.status !== "unchanged").map((t) => t.id);
  if (fresh.length && !flagBool(args, "no-warm")) {
    const total = await warmFirstViews(ctx, fresh);
    const warming = createProgressBar(io, "Preparing first views", { enabled: !json });
    try {
      await warmingSettled((backlog) => warming.update(Math.max(0, total - backlog), total));
    } finally {
      warming.finish();
    }
  }
  const code = report.skipped.length ? IMPORT_EXIT.someSkipped : IMPORT_EXIT.ok;
  // Several runs of one judge stored by this import: how consistent it is with itself.
  const judged = new Set(report.evaluatorLogs.filter((l) => l.run).map((l) => `import:${l.evaluator}`));
  const consistency = judged.size ? (await judgeRunConsistencies(ctx.db)).filter((c) => judged.has(c.evaluatorKey)) : [];
  if (json) io.stdout(JSON.stringify(reportJson(report, consistency)) + "\n");
  else io.stderr(humanReport(report, input, ((Date.now() - started) / 1000).toFixed(1), consistency));
  return code;
}
