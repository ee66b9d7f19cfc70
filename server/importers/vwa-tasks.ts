/**
 * VisualWebArena / WebArena task configs: `test_<site>.raw.json` arrays (VWA: classifieds, reddit, shopping;
 * WebArena: `test_webarena.raw.json`), or a folder holding several of them.
 *
 * Ids: VWA's `task_id` is per site, so tasks are stored under BrowserGym's global id `visualwebarena.<g>` with
 * g = per-site id + site offset (classifieds 0, reddit 234, shopping 444); WebArena ids are global already
 * (`webarena.<id>`). Importers of VWA trajectories join on the same ids (`vwaExternalId`).
 * The `eval` object is kept verbatim for the rule-based evaluators.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import type { ReferenceAnswer } from "../domain/types";
import { readTaskLimits, TASK_MAX_STEPS_FIELD, TASK_TIME_LIMIT_FIELD } from "../domain/live/task-limits";
import { splitTaskFields } from "../domain/catalog/task-attributes";
import { isDir, readJsonFile } from "./fs-helpers";
import { ImportError, type ImportTask, type ImportTaskSet, type Importer } from "./types";

export const VWA_SITE_OFFSETS: Record<string, number> = { classifieds: 0, reddit: 234, shopping: 444 };

export function vwaExternalId(site: string, perSiteId: number): string {
  const offset = VWA_SITE_OFFSETS[site];
  if (offset === undefined) throw new Error(`not a VisualWebArena site: ${site}`);
  return `visualwebarena.${perSiteId + offset}`;
}

export function vwaTaskSetName(site: string): string {
  return `VisualWebArena ${site}`;
}

export const WEBARENA_TASK_SET = { name: "WebArena", benchmark: "webarena" } as const;

/** The sites of the published WebArena deployment; tasks on any other site come from a deployment of one's own. */
export const WEBARENA_SITES: readonly string[] = ["shopping", "shopping_admin", "reddit", "gitlab", "map", "wikipedia"];

/**
 * Tasks written for a deployment of one's own (a site that is neither WebArena's nor VisualWebArena's): a task set
 * per site, ids `<site>.<task_id>`, so a `test_<site>.raw.json` task file and the renders of its runs join.
 */
export function customTaskSet(site: string): ImportTaskSet {
  return { name: `WebArena-style ${site}`, benchmark: "webarena" };
}

export function customExternalId(site: string, taskId: number): string {
  return `${site}.${taskId}`;
}

const FILE_RE = /^test_(.+)\.raw\.json$/;

interface RawTask {
  task_id: number;
  sites?: string[];
  intent: string;
  start_url?: string;
  image?: string | string[] | null;
  eval?: {
    eval_types?: string[];
    reference_answers?: Record<string, unknown> | null;
    reference_url?: string;
  };
  reasoning_difficulty?: string;
  visual_difficulty?: string;
  overall_difficulty?: string;
  [key: string]: unknown;
}

function asStrings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
  return [];
}

export function referenceAnswersFromEval(ev: RawTask["eval"]): ReferenceAnswer[] {
  const out: ReferenceAnswer[] = [];
  const ra = ev?.reference_answers;
  if (ra && typeof ra === "object") {
    for (const [kind, value] of Object.entries(ra)) {
      for (const text of asStrings(value)) out.push({ kind, text });
    }
  }
  if (typeof ev?.reference_url === "string" && ev.reference_url) {
    for (const url of ev.reference_url.split(" |OR| ")) out.push({ kind: "url", text: url.trim() });
  }
  return out;
}

function toTask(raw: unknown, index: number, file: string, fileSite: string): ImportTask {
  const where = `task at index ${index}`;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new ImportError(file, `${where} is not an object`);
  const t = raw as RawTask;
  if (!Number.isInteger(t.task_id)) throw new ImportError(file, `${where}: "task_id" is missing or not an integer`);
  if (typeof t.intent !== "string" || !t.intent.trim()) throw new ImportError(file, `${where} (task_id ${t.task_id}): "intent" is missing`);
  if (t.eval !== undefined && (typeof t.eval !== "object" || t.eval === null)) {
    throw new ImportError(file, `${where} (task_id ${t.task_id}): "eval" is not an object`);
  }
  // Limits a lab added to the config (the published configs carry none): checked here, read by the runner from `extra`.
  const limits = readTaskLimits(t);
  if ("error" in limits) throw new ImportError(file, `${where} (task_id ${t.task_id}): ${limits.error}`);
  const isVwa = fileSite in VWA_SITE_OFFSETS;
  const sites = asStrings(t.sites);
  const { task_id, intent, start_url, image, eval: ev, reasoning_difficulty, visual_difficulty, overall_difficulty, sites: _s, ...rest } = t;
  return {
    taskSet: isVwa ? { name: vwaTaskSetName(fileSite), benchmark: "visualwebarena" } : fileSite === "webarena" ? WEBARENA_TASK_SET : customTaskSet(fileSite),
    externalId: isVwa ? vwaExternalId(fileSite, task_id) : customExternalId(fileSite, task_id),
    site: isVwa ? fileSite : sites.join("+") || null,
    intent: intent.trim(),
    startUrl: typeof start_url === "string" ? start_url : null,
    inputImages: asStrings(image),
    referenceAnswers: referenceAnswersFromEval(ev),
    evaluatorConfig: ev ?? null,
    difficulty:
      overall_difficulty || reasoning_difficulty || visual_difficulty
        ? { overall: overall_difficulty ?? null, reasoning: reasoning_difficulty ?? null, visual: visual_difficulty ?? null }
        : null,
    tags: [...sites.map((s) => `site:${s}`), ...asStrings(ev?.eval_types).map((e) => `eval:${e}`)],
    extra: { task_id, ...rest },
    // The config's other scalar fields (intent_template_id, require_login…) as split keys; `extra` keeps them all.
    attributes: splitTaskFields(rest, new Set([TASK_MAX_STEPS_FIELD, TASK_TIME_LIMIT_FIELD])).attributes,
    fromTaskFile: true,
  };
}

async function configFiles(input: string): Promise<string[]> {
  if (await isDir(input)) {
    const found: string[] = [];
    const walk = async (dir: string, depth: number) => {
      for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory() && depth < 2) await walk(p, depth + 1);
        else if (e.isFile() && FILE_RE.test(e.name)) found.push(p);
      }
    };
    await walk(input, 0);
    return found.sort();
  }
  return FILE_RE.test(path.basename(input)) ? [input] : [];
}

export const vwaTasksImporter: Importer = {
  format: "vwa-tasks",
  description: "VisualWebArena / WebArena task configs test_<site>.raw.json (a file or a folder of them)",
  async sniff(input) {
    return (await configFiles(input)).length ? 0.8 : 0;
  },
  async *read(input, options) {
    const files = await configFiles(input);
    if (!files.length) throw new ImportError(input, "no test_<site>.raw.json task config files found");
    const parsed: { file: string; site: string; tasks: unknown[] }[] = [];
    for (const file of files) {
      const data = await readJsonFile(file);
      if (!Array.isArray(data)) throw new ImportError(file, "expected a JSON array of task configs");
      parsed.push({ file, site: FILE_RE.exec(path.basename(file))![1]!, tasks: data });
    }
    options.onTotal?.(parsed.reduce((n, p) => n + p.tasks.length, 0));
    for (const p of parsed) {
      for (let i = 0; i < p.tasks.length; i++) yield { kind: "task", task: toTask(p.tasks[i], i, p.file, p.site) };
    }
  },
};
