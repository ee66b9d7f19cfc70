/**
 * Verdict's own trajectory bundle (server/domain/imports/bundle.ts): a folder or .zip with manifest.json + images.
 * The manifest is validated with zod; every image's bytes must hash to the sha256 the manifest gives.
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { MANIFEST_NAME, bundleManifestSchema, describeZodIssues, type BundleImage } from "../domain/imports/bundle";
import { readImageInfo } from "../domain/image-info";
import { sha256 } from "../domain/content-hash";
import { exists, isDir } from "./fs-helpers";
import { ImportError, type ImageRef, type Importer } from "./types";
import { openZipReader } from "./zip";

interface BundleSource {
  label: string;
  readManifest(): Promise<unknown>;
  readFile(name: string): Promise<Uint8Array>;
  close(): void;
}

/**
 * Reads a file of a folder bundle, refusing any path or symbolic link that leads outside the folder: a bundle is
 * someone else's data, and a link in it must not pull files from elsewhere on this machine into the store.
 */
async function readInsideFolder(root: string, rootReal: string, label: string, name: string): Promise<Uint8Array> {
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
  try {
    return await fsp.readFile(real);
  } catch (e) {
    throw new ImportError(shown, `cannot be read (${(e as Error).message})`);
  }
}

async function openSource(input: string): Promise<BundleSource> {
  if (await isDir(input)) {
    const root = path.resolve(input);
    const rootReal = await fsp.realpath(root);
    const read = (name: string) => readInsideFolder(root, rootReal, input, name);
    return {
      label: input,
      readManifest: async () => {
        const text = Buffer.from(await read(MANIFEST_NAME)).toString("utf8");
        try {
          return JSON.parse(text) as unknown;
        } catch (e) {
          throw new ImportError(path.join(input, MANIFEST_NAME), `is not valid JSON (${(e as Error).message})`);
        }
      },
      readFile: read,
      close: () => {},
    };
  }
  const zip = await openZipReader(input);
  return {
    label: input,
    readManifest: async () => {
      if (!zip.has(MANIFEST_NAME)) throw new ImportError(input, `has no ${MANIFEST_NAME} at the top level of the archive`);
      const text = (await zip.read(MANIFEST_NAME)).toString("utf8");
      try {
        return JSON.parse(text);
      } catch (e) {
        throw new ImportError(`${input}:${MANIFEST_NAME}`, `is not valid JSON (${(e as Error).message})`);
      }
    },
    readFile: (name) => zip.read(name),
    close: () => zip.close(),
  };
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
    try {
      const raw = await source.readManifest();
      const parsed = bundleManifestSchema.safeParse(raw);
      if (!parsed.success) {
        throw new ImportError(`${input}${path.sep}${MANIFEST_NAME}`, `is not a valid Verdict bundle manifest: ${describeZodIssues(parsed.error)}`);
      }
      const manifest = parsed.data;
      // Exported from this very database: its own judge and rule verdicts are already here; only verdicts that were
      // imported from elsewhere travel with it (and come back unchanged).
      const fromHere = manifest.sourceInstance !== undefined && manifest.sourceInstance === options.instanceId;
      options.onTotal?.(manifest.trajectories.length);
      for (const [i, t] of manifest.trajectories.entries()) {
        yield {
          kind: "trajectory",
          trajectory: {
            task: {
              taskSet: t.task.taskSet,
              externalId: t.task.externalId,
              site: t.task.site,
              intent: t.task.intent,
              startUrl: t.task.startUrl,
              inputImages: t.task.inputImages,
              referenceAnswers: t.task.referenceAnswers,
              evaluatorConfig: t.task.evaluatorConfig ?? null,
              difficulty: t.task.difficulty,
              tags: t.task.tags,
              extra: t.task.extra,
              attributes: t.task.attributes ?? null,
            },
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
              url: s.url,
              thought: s.thought,
              actionRaw: s.actionRaw,
              action: s.action,
              elements: s.elements,
              error: s.error,
              durationMs: s.durationMs,
            })),
            verdicts: t.verdicts
              .filter((v) => !fromHere || v.evaluatorKey.startsWith("import:"))
              .map((v) => ({
                evaluator: v.evaluator,
                evaluatorKind: v.kind,
                verdict: v.verdict,
                score: v.score,
                rationale: v.rationale,
                raw: v.raw,
                key: v.evaluatorKey.startsWith("import:") ? v.evaluatorKey : `import:${v.evaluator}`,
                k: v.k,
                promptVersion: v.promptVersion,
                model: v.model,
                ...(v.stepIndices ? { stepIndices: v.stepIndices } : {}),
                ...(v.details ? { details: v.details } : {}),
              })),
          },
        };
      }
    } finally {
      source.close();
    }
  },
};
