/**
 * ATIF trajectories (server/domain/imports/atif.ts): one `.json` file, or every ATIF file found at any depth below a
 * folder (`trajectory.json`, `<agent>.trajectory.json`, Verdict's `*.atif.json` exports…; a file is ATIF when its
 * `schema_version` says so). Images are read from the paths the file gives, relative to it, and never from outside
 * the imported folder; `data:` URLs are decoded; web addresses are not fetched. A missing image leaves its step
 * without one and says so.
 *
 * Harbor's trial layout (`<job>/<trial>/agent/trajectory.json` beside `<trial>/result.json`) gives the task's name,
 * the run (the job folder) and the verifier's reward, kept as a rule verdict. Verdict's own exports carry their task,
 * run and verdicts in `extra.verdict` and come back as they were exported.
 */
import crypto from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import { atifTrajectorySchema, readAtif, type AtifImageRef, type AtifReading } from "../domain/imports/atif";
import type { Outcome } from "../domain/types";
import { importedBundleTask, importedBundleVerdicts } from "./bundle-fields";
import { findFolders, runNameFromPath } from "./find-folders";
import { headText, isDir } from "./fs-helpers";
import {
  ImportError,
  type ImageRef,
  type ImportItem,
  type ImportStep,
  type ImportTask,
  type ImportTrajectory,
  type ImportVerdict,
  type Importer,
} from "./types";
import { importTask } from "./import-task";
import { stepContent } from "../domain/types";

export const ATIF_TASK_SET = { name: "ATIF", benchmark: "atif" } as const;
/** Names ATIF files usually have; any `.json` given on its own is looked at too. */
const CANDIDATE = /(^|[._-])(trajectory|atif)[^/\\]*\.json$/i;
const HEAD_BYTES = 8192;
const MAX_FILE_BYTES = 512 * 1024 * 1024;

const head = (file: string) => headText(file, HEAD_BYTES);

export async function looksLikeAtif(file: string): Promise<boolean> {
  if (!/\.json$/i.test(file)) return false;
  return /"schema_version"\s*:\s*"ATIF-v\d/.test(await head(file));
}

/** ATIF files at any depth below a folder, in natural order. */
async function findAtifFiles(root: string, limit = Infinity): Promise<string[]> {
  const found: string[] = [];
  await findFolders(
    root,
    async (dir) => {
      const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
      const names = entries.filter((e) => e.isFile() && CANDIDATE.test(e.name)).map((e) => e.name);
      for (const name of names.sort((a, b) => a.localeCompare(b, "en", { numeric: true }))) {
        if (found.length >= limit) break;
        if (await looksLikeAtif(path.join(dir, name))) found.push(path.join(dir, name));
      }
      // A folder is searched further even when it holds ATIF files (Harbor keeps sub-agents' files below).
      return false;
    },
    { maxFolders: limit === Infinity ? 100_000 : 5000 },
  );
  return found;
}

/** Harbor's `result.json` of the trial an ATIF file belongs to (`<trial>/agent/trajectory.json`), if any. */
interface HarborTrial {
  dir: string;
  taskName: string | null;
  dataset: string | null;
  reward: number | null;
  rewards: Record<string, unknown> | null;
  exception: string | null;
}

async function harborTrial(file: string): Promise<HarborTrial | null> {
  const agentDir = path.dirname(file);
  if (path.basename(agentDir) !== "agent") return null;
  const dir = path.dirname(agentDir);
  const resultFile = path.join(dir, "result.json");
  const stat = await fsp.stat(resultFile).catch(() => null);
  if (!stat?.isFile() || stat.size > 64 * 1024 * 1024) return null;
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(await fsp.readFile(resultFile, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new ImportError(resultFile, `is not valid JSON (${(e as Error).message})`);
  }
  if (!r || typeof r !== "object" || Array.isArray(r)) return null;
  const rewards = (r.verifier_result as { rewards?: unknown } | null | undefined)?.rewards;
  const rewardMap = rewards && typeof rewards === "object" && !Array.isArray(rewards) ? (rewards as Record<string, unknown>) : null;
  const reward = typeof rewardMap?.reward === "number" && Number.isFinite(rewardMap.reward) ? rewardMap.reward : null;
  const exception = r.exception_info ? (typeof r.exception_info === "string" ? r.exception_info : JSON.stringify(r.exception_info)) : null;
  const source = typeof r.source === "string" && r.source.trim() ? r.source.trim() : null;
  return {
    dir,
    taskName: typeof r.task_name === "string" && r.task_name.trim() ? r.task_name.trim() : null,
    dataset: source,
    reward,
    rewards: rewardMap,
    exception,
  };
}

/** An image an ATIF file points at, read on demand and only from inside `root`. */
function imageRef(ref: AtifImageRef, file: string, root: string): { image: ImageRef | null; problem: string | null; embedded?: boolean } {
  const data = /^data:(image\/[\w.+-]+);base64,(.*)$/s.exec(ref.path);
  if (data) {
    return { image: { origin: `${file} (an embedded ${data[1]} image)`, read: async () => Buffer.from(data[2]!, "base64") }, problem: null, embedded: true };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref.path) && !ref.path.startsWith("file://")) {
    return { image: null, problem: `${ref.path} is a web address; Verdict does not fetch images` };
  }
  const given = ref.path.startsWith("file://") ? decodeURIComponent(ref.path.slice("file://".length)) : ref.path;
  const abs = path.resolve(path.dirname(file), given);
  const rel = path.relative(root, abs);
  if (rel.startsWith("..") || path.isAbsolute(rel)) return { image: null, problem: `${ref.path} is outside the imported folder and was not read` };
  return {
    image: {
      origin: abs,
      read: async () => {
        // A link inside the folder must not pull in a file from elsewhere.
        const real = await fsp.realpath(abs).catch(() => null);
        const realRoot = await fsp.realpath(root).catch(() => root);
        if (!real) throw new ImportError(abs, "file is missing");
        const realRel = path.relative(realRoot, real);
        if (realRel.startsWith("..") || path.isAbsolute(realRel)) throw new ImportError(abs, "is a link to a file outside the imported folder");
        return fsp.readFile(real);
      },
    },
    problem: null,
  };
}

function taskOf(reading: AtifReading, trial: HarborTrial | null, file: string): ImportTask {
  const v = reading.verdict;
  if (v) return importedBundleTask(v.task);
  const intent = reading.intent?.trim();
  if (!intent) throw new ImportError(file, "has no task: no user step with a message, and no extra.verdict.task");
  // Without a task name, the task is known by its text: the same instruction is the same task wherever it is found.
  const externalId = trial?.taskName ?? `atif-${crypto.createHash("sha256").update(intent).digest("hex").slice(0, 12)}`;
  return importTask({
    taskSet: trial?.dataset ? { name: trial.dataset, benchmark: trial.dataset } : ATIF_TASK_SET,
    externalId,
    site: null,
    intent,
    startUrl: null,
  });
}

function harborVerdict(trial: HarborTrial | null): ImportVerdict[] {
  if (!trial || trial.reward === null) return [];
  return [
    {
      evaluator: "harbor:reward",
      evaluatorKind: "rule",
      verdict: trial.reward > 0.5 ? "success" : "failure",
      score: trial.reward,
      rationale: `verifier reward ${trial.reward} (success above 0.5)`,
      raw: trial.rewards,
    },
  ];
}

interface Grouped {
  file: string;
  reading: AtifReading;
  trial: HarborTrial | null;
  task: ImportTask;
  /** The folder that is the trajectory's run: Harbor's job folder, else the file's own folder. */
  runDir: string;
}

async function readOne(file: string): Promise<Grouped> {
  const stat = await fsp.stat(file);
  if (stat.size > MAX_FILE_BYTES) throw new ImportError(file, `is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`);
  let data: unknown;
  try {
    data = JSON.parse(await fsp.readFile(file, "utf8"));
  } catch (e) {
    throw new ImportError(file, `is not valid JSON (${(e as Error).message})`);
  }
  const parsed = atifTrajectorySchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ImportError(file, `is not an ATIF trajectory: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const reading = readAtif(parsed.data);
  const trial = reading.verdict ? null : await harborTrial(file);
  return { file, reading, trial, task: taskOf(reading, trial, file), runDir: trial ? path.dirname(trial.dir) : path.dirname(file) };
}

async function toTrajectory(g: Grouped, input: string, root: string, attempt: number, instanceId: string | undefined): Promise<ImportTrajectory> {
  const { reading, trial, file } = g;
  const warnings = [...reading.warnings];
  const steps: ImportStep[] = [];
  for (const s of reading.steps) {
    // A missing or unreachable image costs its step the image, not the trajectory.
    const pick = async (ref: AtifImageRef | null, what: string) => {
      if (!ref) return null;
      const { image, problem, embedded } = imageRef(ref, file, root);
      if (problem) warnings.push(`step ${s.index + 1}: ${problem}, so the step has no ${what}`);
      else if (image && !embedded && !(await fsp.stat(image.origin).catch(() => null))?.isFile()) {
        warnings.push(`step ${s.index + 1}: ${ref.path} is missing, so the step has no ${what}`);
        return null;
      }
      return image;
    };
    const screenshot = await pick(s.screenshot, "image");
    steps.push({
      index: s.index,
      screenshot,
      rawScreenshot: await pick(s.rawScreenshot, "unmarked image"),
      marksBurnedIn: s.marksBurnedIn && screenshot !== null,
      ...stepContent(s),
      durationMs: s.durationMs,
    });
  }
  const v = reading.verdict;
  const agent = reading.agentName?.trim() || "ATIF agent";
  const runName = runNameFromPath(input, g.runDir);
  let outcome: Outcome = reading.outcome;
  let outcomeDetail = reading.outcomeDetail;
  if (!v && outcome === "unknown" && trial?.exception) {
    outcome = "error";
    outcomeDetail = trial.exception.length > 4000 ? `${trial.exception.slice(0, 4000)}…` : trial.exception;
  }
  return {
    task: g.task,
    run: v
      ? { runKey: v.run.runKey, name: v.run.name, agentName: v.run.agentName, model: v.run.model, sourceSystem: v.run.sourceSystem, config: v.run.config }
      : {
          runKey: `atif:${runName}#${agent}#${reading.model ?? ""}`,
          name: `${runName} · ${agent}`,
          agentName: agent,
          model: reading.model,
          sourceSystem: "atif",
          config: reading.agentVersion ? { agentVersion: reading.agentVersion } : null,
        },
    attempt: v ? v.attempt : attempt,
    finalAnswer: reading.finalAnswer,
    outcome,
    outcomeDetail,
    sourcePath: file,
    steps,
    verdicts: v ? importedBundleVerdicts(v.verdicts, v.sourceInstance !== undefined && v.sourceInstance === instanceId) : harborVerdict(trial),
    ...(warnings.length ? { warnings } : {}),
  };
}

export const atifImporter: Importer = {
  format: "atif",
  description: "ATIF trajectories (Agent Trajectory Interchange Format, any harness; Harbor trials with their rewards): a .json file or a folder of them",
  async sniff(input) {
    if (await isDir(input)) return (await findAtifFiles(input, 1)).length ? 0.92 : 0;
    return (await looksLikeAtif(input)) ? 0.95 : 0;
  },
  async *read(input, options) {
    const folder = await isDir(input);
    const files = folder ? await findAtifFiles(input) : [input];
    if (!files.length) throw new ImportError(input, 'no ATIF trajectory files found (JSON files whose schema_version is "ATIF-v1.<n>")');
    options.onTotal?.(files.length);
    const root = folder ? path.resolve(input) : path.dirname(path.resolve(input));
    const seen = new Map<string, number>();
    for (const file of files) {
      let item: ImportItem;
      try {
        const g = await readOne(file);
        // Trials of one task in one run (Harbor's n_attempts) are its attempts 0, 1, … in folder order.
        const key = `${g.runDir}\u0000${g.task.taskSet.name}\u0000${g.task.externalId}\u0000${g.reading.agentName}\u0000${g.reading.model}`;
        const attempt = seen.get(key) ?? 0;
        seen.set(key, attempt + 1);
        item = { kind: "trajectory", trajectory: await toTrajectory(g, input, root, attempt, options.instanceId) };
      } catch (e) {
        if (!(e instanceof ImportError)) throw e;
        item = { kind: "skipped", path: e.file, reason: e.problem };
      }
      yield item;
    }
  },
};
