/**
 * Verdict's own trajectory bundle (server/domain/imports/bundle.ts): a folder or .zip with manifest.json + images.
 *
 * The manifest is read as a stream (./bundle-manifest.ts) under a size limit, and validated trajectory by trajectory
 * as it is read: a trajectory that is not valid is skipped with its first problems named, the others are imported,
 * and after MAX_INVALID_TRAJECTORIES invalid ones the rest is not read (a file that is mostly wrong needs fixing,
 * not a list of every error). Every image's bytes must hash to the sha256 the manifest gives.
 */
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { importLimitsFromEnv } from "../config";
import {
  MANIFEST_NAME,
  bundleManifestSchema,
  bundleTrajectorySchema,
  describeZodIssues,
  type BundleImage,
  type BundleTrajectory,
} from "../domain/imports/bundle";
import { firstIssue, issuePath } from "../domain/imports/first-issue";
import { readImageInfo } from "../domain/image-info";
import { sha256 } from "../domain/content-hash";
import { manifestTrajectories, readManifestHeader, refuseOversizedManifest, type ManifestSource } from "./bundle-manifest";
import { importedBundleTask, importedBundleVerdicts } from "./bundle-fields";
import { exists, isDir } from "./fs-helpers";
import { ImportError, type ImageRef, type Importer } from "./types";
import { openZipReader } from "./zip";
import { stepContent } from "../domain/types";

/** Invalid trajectories after which the rest of a manifest is not read. */
export const MAX_INVALID_TRAJECTORIES = 20;

/**
 * Trajectories up to this many JSON tokens are validated by zod at once; larger ones first element by element
 * (first-issue.ts), so that a trajectory of a million invalid steps reports its first problem instead of building a
 * million issues.
 */
const WHOLE_VALIDATION_TOKENS = 20_000;

interface BundleSource {
  label: string;
  manifest(): Promise<ManifestSource>;
  readFile(name: string): Promise<Uint8Array>;
  close(): void;
}

/**
 * The file of a folder bundle that `name` leads to, refusing any path or symbolic link that leads outside the folder:
 * a bundle is someone else's data, and a link in it must not pull files from elsewhere on this machine into the store.
 */
async function fileInsideFolder(root: string, rootReal: string, label: string, name: string): Promise<{ real: string; size: number }> {
  const shown = path.join(label, name);
  const p = path.resolve(root, name);
  if (!p.startsWith(root + path.sep)) throw new ImportError(shown, "is outside the bundle folder");
  let real: string;
  try {
    real = await fsp.realpath(p);
  } catch {
    throw new ImportError(shown, "file is missing");
  }
  if (!real.startsWith(rootReal + path.sep)) throw new ImportError(shown, "is a link to a file outside the bundle folder");
  const stat = await fsp.stat(real);
  if (!stat.isFile()) throw new ImportError(shown, "is not a file");
  return { real, size: stat.size };
}

async function openSource(input: string): Promise<BundleSource> {
  if (await isDir(input)) {
    const root = path.resolve(input);
    const rootReal = await fsp.realpath(root);
    return {
      label: input,
      manifest: async () => {
        const { real, size } = await fileInsideFolder(root, rootReal, input, MANIFEST_NAME);
        return { where: path.join(input, MANIFEST_NAME), size, open: async () => fs.createReadStream(real, { highWaterMark: 64 * 1024 }) };
      },
      readFile: async (name) => {
        const { real } = await fileInsideFolder(root, rootReal, input, name);
        try {
          return await fsp.readFile(real);
        } catch (e) {
          throw new ImportError(path.join(input, name), `cannot be read (${(e as Error).message})`);
        }
      },
      close: () => {},
    };
  }
  const zip = await openZipReader(input);
  return {
    label: input,
    manifest: async () => {
      if (!zip.has(MANIFEST_NAME)) throw new ImportError(input, `has no ${MANIFEST_NAME} at the top level of the archive`);
      return { where: `${input}:${MANIFEST_NAME}`, size: zip.size(MANIFEST_NAME) ?? 0, open: () => zip.stream(MANIFEST_NAME) };
    },
    readFile: (name) => zip.read(name),
    close: () => zip.close(),
  };
}

/** The manifest's own fields (format, version, where it was made) and its list of trajectories, checked. */
const manifestHeaderSchema = bundleManifestSchema.omit({ trajectories: true });

/** What is wrong with the manifest as a whole, in the words zod uses for the same problems, or null. */
function headerProblem(header: Awaited<ReturnType<typeof readManifestHeader>>): string | null {
  const parsed = manifestHeaderSchema.safeParse(header.fields);
  const problems: string[] = parsed.success ? [] : [describeZodIssues(parsed.error)];
  if (header.trajectories === "missing") problems.push("trajectories: Invalid input: expected array, received undefined");
  else if (header.trajectories === "not a list") problems.push("trajectories: Invalid input: expected array");
  else if (header.trajectories === 0) problems.push("trajectories: Too small: expected array to have >=1 items");
  return problems.length ? problems.join("; ") : null;
}

/** One trajectory of the manifest, checked: its parsed form, or its first problems. */
function checkTrajectory(value: unknown, tokens: number): { ok: true; trajectory: BundleTrajectory } | { ok: false; problem: string } {
  if (tokens > WHOLE_VALIDATION_TOKENS) {
    const issue = firstIssue(bundleTrajectorySchema, value);
    if (issue) return { ok: false, problem: `${issuePath(issue.path)}: ${issue.message}` };
  }
  const parsed = bundleTrajectorySchema.safeParse(value);
  return parsed.success ? { ok: true, trajectory: parsed.data } : { ok: false, problem: describeZodIssues(parsed.error) };
}

function checkedImage(source: BundleSource, img: BundleImage | null): ImageRef | null {
  if (!img) return null;
  const origin = `${source.label}:${img.file}`;
  return {
    origin,
    read: async () => {
      const bytes = await source.readFile(img.file);
      if (sha256(bytes) !== img.sha256) throw new ImportError(origin, "content does not match the sha256 in the manifest");
      const info = readImageInfo(bytes);
      if (info && (info.width !== img.width || info.height !== img.height)) {
        throw new ImportError(origin, `is ${info.width}×${info.height}, the manifest says ${img.width}×${img.height}`);
      }
      return bytes;
    },
  };
}

export const nativeImporter: Importer = {
  format: "native",
  description: "Verdict trajectory bundle: a folder or .zip with manifest.json and images/",
  async sniff(input) {
    if (await isDir(input)) return exists(path.join(input, MANIFEST_NAME)) ? 1 : 0;
    return input.toLowerCase().endsWith(".zip") ? 0.7 : 0;
  },
  async *read(input, options) {
    const source = await openSource(input);
    const { manifestMaxBytes } = importLimitsFromEnv();
    try {
      const manifest = await source.manifest();
      const shown = `${input}${path.sep}${MANIFEST_NAME}`;
      refuseOversizedManifest(manifest, manifestMaxBytes);
      const header = await readManifestHeader(manifest, manifestMaxBytes);
      const problem = headerProblem(header);
      if (problem) throw new ImportError(shown, `is not a valid Verdict bundle manifest: ${problem}`);
      const total = header.trajectories as number;
      // Exported from this very database: its own judge and rule verdicts are already here; only verdicts that were
      // imported from elsewhere travel with it (and come back unchanged).
      const fromHere = header.fields.sourceInstance !== undefined && header.fields.sourceInstance === options.instanceId;
      options.onTotal?.(total);
      let invalid = 0;
      for await (const { index: i, value, tokens } of manifestTrajectories(manifest, manifestMaxBytes)) {
        const checked = checkTrajectory(value, tokens);
        if (!checked.ok) {
          invalid++;
          yield { kind: "skipped", path: `${input}#trajectories[${i}]`, reason: `is not a valid Verdict bundle trajectory: ${checked.problem}` };
          if (invalid >= MAX_INVALID_TRAJECTORIES && i < total - 1) {
            throw new ImportError(
              shown,
              `${invalid} of its first ${i + 1} trajectories are not valid; the other ${total - i - 1} were not read (fix the bundle and import it again: what was imported is kept, and not imported twice)`,
            );
          }
          continue;
        }
        const t = checked.trajectory;
        yield {
          kind: "trajectory",
          trajectory: {
            task: importedBundleTask(t.task),
            run: t.run,
            attempt: t.attempt,
            finalAnswer: t.finalAnswer,
            outcome: t.outcome,
            outcomeDetail: t.outcomeDetail,
            sourcePath: `${input}#trajectories[${i}]`,
            steps: t.steps.map((s) => ({
              index: s.index,
              screenshot: checkedImage(source, s.screenshot),
              rawScreenshot: checkedImage(source, s.rawScreenshot),
              marksBurnedIn: s.marksBurnedIn,
              ...stepContent(s),
              durationMs: s.durationMs,
            })),
            verdicts: importedBundleVerdicts(t.verdicts, fromHere),
          },
        };
      }
    } finally {
      source.close();
    }
  },
};
