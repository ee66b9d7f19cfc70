/**
 * Shareable read-only reports: the trajectories of a list selection (its filter, search or sample, which covers a
 * saved search, a campaign and a run) as a static folder or zip that opens from the file system with no server and
 * no account: an index, a player per trajectory, the evaluations chosen for publication, the agreement of the chosen
 * judges with the human labels, and a manifest of what was included and withheld.
 *
 * Researchers and admins only. The selection is narrowed by the same scope as the list; someone labelling blind gets
 * their scope's trajectories with no labels, verdicts or agreement at all (the manifest says so). Annotators' names
 * are withheld unless asked for: their labels then read "annotator 1", "annotator 2" throughout the report.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { Db } from "../../../db/database";
import { consolidatedOfTrajectory, labelsOfTrajectory } from "../../../db/repositories/annotation/labels";
import { requireRole, type Actor } from "../../domain/access/actor";
import { cohenKappa } from "../../domain/agreement/cohen";
import { extensionForMime } from "../../domain/image-info";
import type { BundleTrajectory } from "../../domain/imports/bundle";
import {
  dataScript,
  indexHtml,
  PLAYER_JS,
  playerFileName,
  playerHtml,
  REPORT_CSS,
  trajectoryDataFileName,
  type ReportAgreementRow,
  type ReportEvaluation,
  type ReportIndex,
  type ReportTrajectory,
} from "../../domain/trajectories/static-report";
import { trajectoryListInput, type TrajectoryListInput, type TrajectoryListQuery } from "../../domain/trajectory-list-input";
import { formatEvaluatorRef, trajectoryListSearch, usesTriage } from "../../domain/trajectory-list-query";
import { ValidationError } from "../../errors";
import type { ReportFileStore } from "../../storage/report-files";
import type { ScreenshotStore } from "../../storage/screenshot-store";
import { assertMayTriage, scopeTrajectoryFilter, seesWholeCatalog } from "../access";
import { trajectoryToBundle } from "../bundle-io";
import { listTrajectoryPage } from "../trajectory-views";
import { writeZip } from "./atif-export";
import packageJson from "../../../package.json";
import { stepContent } from "../../domain/types";

/** The most trajectories one report holds: a larger selection is refused with its size, to be narrowed first. */
export const MAX_REPORT_TRAJECTORIES = 5000;
const PAGE = 200;

export interface ReportOptions {
  /** The trajectory list's filter (as its URL holds it); paging and sort order of the list are ignored. */
  selection: TrajectoryListInput;
  /** Human labels to publish: none, the consolidated label of each campaign, or that and every annotator's label. */
  labels: "none" | "consolidated" | "all";
  /** Judges whose verdicts are published: every one, or these evaluator refs (`key@k@prompt version`); [] for none. */
  judges: "all" | string[];
  /** Publish annotators' names (default: withheld, shown as "annotator 1, 2…"). */
  annotatorNames?: boolean;
  /** The agreement table of the published judges with the consolidated human labels of the selection. */
  agreement?: boolean;
  title?: string;
}

export interface ReportManifest {
  format: "verdict-report";
  version: 1;
  generator: string;
  createdAt: string;
  title: string;
  selection: { filter: string; trajectories: number };
  counts: { trajectories: number; steps: number; screenshots: number; humanLabels: number; judgeVerdicts: number };
  published: { labels: ReportOptions["labels"]; judges: string[]; annotatorNames: boolean; agreement: boolean };
  withheld: string[];
  trajectories: { n: number; file: string; task: string; run: string; steps: number }[];
}

export interface ReportFiles {
  docs: { name: string; body: string }[];
  /** Screenshot hash → mime of every image the pages show, written as `images/<hash>.<ext>`. */
  images: Map<string, string>;
  manifest: ReportManifest;
}

type Progress = (done: number, total: number) => void;

/** The ids of the selection as the actor's list shows it, in the list's order; too large a selection is refused. */
async function selectedIds(db: Db, actor: Actor, query: TrajectoryListQuery): Promise<number[]> {
  if (usesTriage(query) || query.sample !== undefined) await assertMayTriage(db, actor);
  const scoped = await scopeTrajectoryFilter(db, actor, query);
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const result = await listTrajectoryPage(db, { ...scoped, page, pageSize: PAGE });
    if (result.total > MAX_REPORT_TRAJECTORIES) {
      throw new ValidationError(
        `The selection holds ${result.total} trajectories; a report holds at most ${MAX_REPORT_TRAJECTORIES}: narrow the filter or draw a sample`,
      );
    }
    ids.push(...result.rows.map((r) => r.id));
    if (page >= result.pageCount) break;
  }
  if (!ids.length) throw new ValidationError("Nothing to report: no trajectories match the selection");
  return ids;
}

interface Publication {
  labels: ReportOptions["labels"];
  judges: "all" | Set<string>;
  names: boolean;
  /** Annotator key → "annotator N", numbered in order of first appearance across the report. */
  pseudonyms: Map<string, string>;
}

function annotatorShown(p: Publication, key: string, name: string): string {
  if (p.names) return name;
  if (!p.pseudonyms.has(key)) p.pseudonyms.set(key, `annotator ${p.pseudonyms.size + 1}`);
  return p.pseudonyms.get(key)!;
}

function judgeRefOf(v: BundleTrajectory["verdicts"][number]): string {
  return formatEvaluatorRef({ key: v.evaluatorKey, k: v.k, pv: v.promptVersion });
}

/** The judge's name with its k and prompt version when it has them (imported verdicts often have neither). */
function judgeName(v: BundleTrajectory["verdicts"][number]): string {
  const parts = [v.k ? `k=${v.k}` : "", v.promptVersion ?? ""].filter(Boolean);
  return parts.length ? `${v.evaluator} (${parts.join(", ")})` : v.evaluator;
}

async function evaluationsOf(db: Db, id: number, t: BundleTrajectory, p: Publication) {
  const evaluations: ReportEvaluation[] = [];
  let human: string | null = null;
  const judged = new Map<string, string>();
  for (const c of await consolidatedOfTrajectory(db, id)) {
    if (human === null && (c.consolidated.verdict === "success" || c.consolidated.verdict === "failure")) human = c.consolidated.verdict;
    if (p.labels !== "none") evaluations.push({ source: "Human (consolidated)", verdict: c.consolidated.verdict, detail: c.consolidated.category });
  }
  if (p.labels === "all") {
    for (const l of await labelsOfTrajectory(db, id)) {
      evaluations.push({ source: annotatorShown(p, l.label.annotatorKey, l.label.annotatorName), verdict: l.label.verdict, detail: null });
    }
  }
  for (const v of t.verdicts) {
    const ref = judgeRefOf(v);
    if (p.judges !== "all" && !p.judges.has(ref)) continue;
    const source = judgeName(v);
    judged.set(source, v.verdict);
    evaluations.push({ source, verdict: v.verdict, detail: v.rationale });
  }
  return { evaluations, human, judged };
}

function reportTrajectory(n: number, t: BundleTrajectory, evaluations: ReportEvaluation[]): ReportTrajectory {
  return {
    n,
    task: t.task.intent,
    taskId: t.task.externalId,
    taskSet: t.task.taskSet.name,
    site: t.task.site,
    run: t.run.name,
    model: t.run.model,
    outcome: t.outcome,
    finalAnswer: t.finalAnswer,
    evaluations,
    steps: t.steps.map((s) => ({
      index: s.index,
      ...stepContent(s),
      image: s.screenshot?.file ?? s.rawScreenshot?.file ?? null,
      width: s.screenshot?.width ?? s.rawScreenshot?.width ?? null,
      height: s.screenshot?.height ?? s.rawScreenshot?.height ?? null,
      marksBurnedIn: s.screenshot ? s.marksBurnedIn : false,
    })),
  };
}

/** Per published judge: κ and raw agreement with the consolidated human label, over the selection's pairs. */
function agreementRows(pairs: Map<string, { human: (string | null)[]; judge: (string | null)[] }>): ReportAgreementRow[] {
  return [...pairs].map(([evaluator, p]) => {
    const k = cohenKappa(p.human, p.judge, { categories: ["success", "failure"] });
    return { evaluator, n: k.n, agreement: k.percentAgreement, kappa: k.kappa };
  });
}

function withheldOf(options: ReportOptions, blind: boolean, names: boolean): string[] {
  const withheld: string[] = [];
  if (blind) withheld.push("every human label, judge verdict and agreement figure: the author labels some of these trajectories blind");
  else {
    if (options.labels === "none") withheld.push("human labels");
    if (options.labels === "consolidated") withheld.push("individual annotators' labels");
    if (options.judges !== "all") withheld.push(options.judges.length ? "verdicts of judges not chosen" : "judge verdicts");
  }
  if (!names) withheld.push("annotators' names (labels are shown as annotator 1, 2…)");
  withheld.push("adjudicators' names and reasons, label notes, judges' raw replies, run configurations");
  return withheld;
}

/** Builds every file of the report in memory (screenshots stay in the store until written). */
export async function buildReport(db: Db, actor: Actor, options: ReportOptions, onProgress?: Progress): Promise<ReportFiles> {
  requireRole(actor, "researcher", "build shareable reports");
  const blind = !(await seesWholeCatalog(db, actor));
  const parsed = trajectoryListInput.safeParse({ ...options.selection, page: 1, pageSize: PAGE });
  if (!parsed.success) throw new ValidationError(`The selection: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  const ids = await selectedIds(db, actor, parsed.data);
  const names = options.annotatorNames === true && !blind;
  const p: Publication = {
    labels: blind ? "none" : options.labels,
    judges: blind ? new Set() : options.judges === "all" ? "all" : new Set(options.judges),
    names,
    pseudonyms: new Map(),
  };
  const images = new Map<string, string>();
  const docs: ReportFiles["docs"] = [];
  const rows: ReportIndex["trajectories"] = [];
  const pairs = new Map<string, { human: (string | null)[]; judge: (string | null)[] }>();
  const stepCounts: number[] = [];
  const counts = { trajectories: ids.length, steps: 0, screenshots: 0, humanLabels: 0, judgeVerdicts: 0 };
  for (const [i, id] of ids.entries()) {
    const bundle = await trajectoryToBundle(db, id, images);
    const { evaluations, human, judged } = await evaluationsOf(db, id, bundle, p);
    const t = reportTrajectory(i + 1, bundle, evaluations);
    for (const [judge, verdict] of judged) {
      counts.judgeVerdicts++;
      if (!pairs.has(judge)) pairs.set(judge, { human: [], judge: [] });
      const pair = pairs.get(judge)!;
      pair.human.push(human);
      pair.judge.push(verdict === "success" || verdict === "failure" ? verdict : null);
    }
    counts.humanLabels += evaluations.length - judged.size;
    counts.steps += t.steps.length;
    stepCounts.push(t.steps.length);
    docs.push({ name: trajectoryDataFileName(t.n), body: dataScript("VERDICT_TRAJECTORY", t) });
    docs.push({ name: playerFileName(t.n), body: playerHtml(t, ids.length) });
    const { steps: _steps, ...row } = t;
    rows.push(row);
    onProgress?.(i + 1, ids.length);
  }
  counts.screenshots = images.size;
  const createdAt = new Date().toISOString();
  const title = options.title?.trim() || "Verdict report";
  const { page: _page, pageSize: _size, ...selection } = parsed.data;
  const filter = trajectoryListSearch(selection) || "all trajectories";
  const agreement = options.agreement && !blind ? agreementRows(pairs) : null;
  const index: ReportIndex = { title, createdAt, selection: filter, trajectories: rows, agreement };
  const manifest: ReportManifest = {
    format: "verdict-report",
    version: 1,
    generator: `Verdict ${packageJson.version}`,
    createdAt,
    title,
    selection: { filter, trajectories: ids.length },
    counts,
    published: { labels: p.labels, judges: p.judges === "all" ? ["all"] : [...p.judges], annotatorNames: names, agreement: agreement !== null },
    withheld: withheldOf(options, blind, names),
    trajectories: rows.map((r) => ({ n: r.n, file: playerFileName(r.n), task: r.task, run: r.run, steps: stepCounts[r.n - 1]! })),
  };
  docs.push(
    { name: "index.html", body: indexHtml(index) },
    { name: "data/index.js", body: dataScript("VERDICT_REPORT", index) },
    { name: "report.css", body: REPORT_CSS },
    { name: "player.js", body: PLAYER_JS },
    { name: "manifest.json", body: `${JSON.stringify(manifest, null, 1)}\n` },
  );
  return { docs, images, manifest };
}

/** Writes a built report into an empty folder, or as a zip when `out` ends in .zip. */
export async function writeReport(store: ScreenshotStore, files: ReportFiles, out: string): Promise<void> {
  for (const hash of files.images.keys()) {
    if (!(await store.has(hash))) throw new Error(`Screenshot ${hash} is missing from the screenshot store (${store.originals.location})`);
  }
  if (out.toLowerCase().endsWith(".zip")) {
    await fsp.mkdir(path.dirname(path.resolve(out)), { recursive: true });
    await writeZip(store, files.docs, files.images, fs.createWriteStream(out));
    return;
  }
  if (fs.existsSync(path.join(out, "manifest.json"))) throw new Error(`${out} already holds a report; choose an empty folder`);
  for (const dir of ["images", "data", "t"]) await fsp.mkdir(path.join(out, dir), { recursive: true });
  for (const d of files.docs) await fsp.writeFile(path.join(out, d.name), d.body);
  for (const [hash, mime] of files.images) {
    const target = path.join(out, `images/${hash}.${extensionForMime(mime)}`);
    const local = store.localPath(hash);
    if (local) await fsp.copyFile(local, target);
    else await fsp.writeFile(target, await store.read(hash));
  }
}

/**
 * Streams the report's zip into the installation's report files under `key` (for the dashboard's download): the
 * zip is never whole in memory, and a missing screenshot or a failed write leaves nothing under `key`.
 */
export async function storeReportZip(store: ScreenshotStore, files: ReportFiles, reports: ReportFileStore, key: string): Promise<number> {
  for (const hash of files.images.keys()) {
    if (!(await store.has(hash))) throw new Error(`Screenshot ${hash} is missing from the screenshot store (${store.originals.location})`);
  }
  const zip = new PassThrough();
  const writing = writeZip(store, files.docs, files.images, zip).catch((e: unknown) => {
    zip.destroy(e as Error);
    throw e;
  });
  const [size] = await Promise.all([reports.write(key, zip), writing]);
  return size;
}
