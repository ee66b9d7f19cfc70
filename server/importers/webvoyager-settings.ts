/**
 * A WebVoyager run's step limit (`--max_iter`), from the settings people keep beside their results: the script that
 * started the run (`run.sh: python run.py … --max_iter 15`), a log or file that printed the arguments
 * (`Namespace(… max_iter=15 …)`, `"max_iter": 15`, `max_iter: 15`), else the default of the `run.py` beside them
 * (`parser.add_argument('--max_iter', type=int, default=5)`). WebVoyager asks the model once per iteration, so a
 * transcript with as many replies as the limit and no ANSWER stopped at the limit.
 *
 * Looked for in the run folder and up to four folders above it (results/<run>/ sits two below the repository);
 * the nearest folder that says wins. Only the start of small text files is read.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { foldersUpFrom, readHead } from "./fs-helpers";

export interface StepLimitSetting {
  limit: number;
  /** Where it was read, for the outcome detail: "--max_iter 15 in run.sh". */
  source: string;
}

const TEXT_FILE = /\.(sh|bash|zsh|bat|cmd|ps1|txt|log|out|json|ya?ml|toml|cfg|ini|conf|env|py)$|^[^.]+$/i;
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const READ_BYTES = 512 * 1024;
const MAX_FILES_PER_FOLDER = 200;

/** An explicit value: a command line, a printed namespace, a config entry. */
const EXPLICIT = [/--max[_-]iter(?:s|ations)?(?:\s*=\s*|\s+)(\d+)\b/g, /\bmax_iter\s*[=:]\s*(\d+)\b/g, /"max_iter"\s*:\s*(\d+)\b/g];
/** The argparse default in a run.py. */
const PY_DEFAULT = /add_argument\(\s*['"]--max_iter['"][^)]*?\bdefault\s*=\s*(\d+)/g;

async function head(file: string): Promise<string | null> {
  const text = await readHead(file, READ_BYTES);
  // A binary file (an image without an extension) is not settings.
  return !text || text.includes(0) ? null : text.toString("utf8");
}

function values(text: string, patterns: RegExp[]): number[] {
  const out: number[] = [];
  for (const re of patterns) for (const m of text.matchAll(re)) out.push(Number(m[1]));
  return out.filter((n) => Number.isInteger(n) && n > 0 && n <= 10_000);
}

/** What one folder says: one explicit value (several different ones say nothing), else one run.py default. */
async function folderSetting(dir: string): Promise<StepLimitSetting | null> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const explicit = new Map<number, string>();
  const defaults = new Map<number, string>();
  let looked = 0;
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isFile() || !TEXT_FILE.test(e.name) || e.name.startsWith(".")) continue;
    if (++looked > MAX_FILES_PER_FOLDER) break;
    const file = path.join(dir, e.name);
    const stat = await fsp.stat(file).catch(() => null);
    if (!stat || stat.size > MAX_FILE_BYTES) continue;
    const text = await head(file);
    if (!text || !/max[_-]iter/i.test(text)) continue;
    const isPython = /\.py$/i.test(e.name);
    for (const n of values(text, isPython ? [PY_DEFAULT] : EXPLICIT)) {
      const map = isPython ? defaults : explicit;
      if (!map.has(n)) map.set(n, isPython ? `the --max_iter default of ${e.name}` : `max_iter ${n} in ${e.name}`);
    }
    // A Python launcher that passes the flag itself ("--max_iter", "15" in a list) is explicit too.
    if (isPython) for (const n of values(text, [/['"]--max_iter['"]\s*,\s*['"]?(\d+)/g])) if (!explicit.has(n)) explicit.set(n, `--max_iter ${n} in ${e.name}`);
  }
  if (explicit.size === 1) {
    const [limit, source] = [...explicit][0]!;
    return { limit, source };
  }
  if (explicit.size === 0 && defaults.size === 1) {
    const [limit, source] = [...defaults][0]!;
    return { limit, source: `${source} (${limit})` };
  }
  return null;
}

/** The step limit the run's settings give, from the run folder up to four folders above it. */
export async function findStepLimit(
  runDir: string,
  cache = new Map<string, Promise<StepLimitSetting | null>>(),
  boundary?: string,
): Promise<StepLimitSetting | null> {
  // Never above `boundary`: an upload's importer reads only what it unpacked.
  for (const dir of foldersUpFrom(runDir, 5, boundary)) {
    let found = cache.get(dir);
    if (!found) {
      found = folderSetting(dir);
      cache.set(dir, found);
    }
    const setting = await found;
    if (setting) return setting;
  }
  return null;
}
