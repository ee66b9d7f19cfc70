/**
 * The importers Verdict knows, and format detection by sniffing a path.
 * Adding a format = one module implementing `Importer` + one line here.
 */
import fsp from "node:fs/promises";
import { ImportError, type Importer } from "./types";
import { nativeImporter } from "./native";
import { webVoyagerImporter, webVoyagerTasksImporter } from "./webvoyager";
import { vwaTasksImporter } from "./vwa-tasks";
import { vwaRenderImporter } from "./vwa-render";
import { seeActImporter } from "./seeact";
import { browserGymImporter } from "./browsergym";
import { agentRewardBenchImporter } from "./agentrewardbench";
import { onlineMind2WebImporter } from "./online-mind2web";
import { browserUseImporter } from "./browser-use";
import { atifImporter } from "./atif";

export const IMPORTERS: Importer[] = [
  nativeImporter,
  webVoyagerImporter,
  webVoyagerTasksImporter,
  vwaTasksImporter,
  vwaRenderImporter,
  seeActImporter,
  browserGymImporter,
  agentRewardBenchImporter,
  onlineMind2WebImporter,
  browserUseImporter,
  atifImporter,
];

export function getImporter(format: string): Importer {
  const found = IMPORTERS.find((i) => i.format === format);
  if (!found) {
    throw new ImportError(format, `unknown format; known formats: auto, ${IMPORTERS.map((i) => i.format).join(", ")}`);
  }
  return found;
}

export async function detectImporter(inputPath: string): Promise<Importer> {
  // A mistyped path is the commonest mistake; say so rather than "cannot tell which format".
  if (!(await fsp.stat(inputPath).catch(() => null))) throw new ImportError(inputPath, "no such file or folder");
  let best: { importer: Importer; score: number } | null = null;
  for (const importer of IMPORTERS) {
    const score = await importer.sniff(inputPath);
    if (score > 0 && (!best || score > best.score)) best = { importer, score };
  }
  if (!best) {
    throw new ImportError(inputPath, `cannot tell which format this is (known: ${IMPORTERS.map((i) => i.format).join(", ")}); pass --format`);
  }
  return best.importer;
}
