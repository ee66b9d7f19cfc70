/**
 * A very long trajectory written straight through the repositories, with realistic per-step weight: a thought of
 * about 2 KB, 30 Set-of-Marks elements with boxes, a URL, a raw action and a distinct screenshot row per step (the
 * screenshot files themselves are not written unless `writeImage` is given). Used by the paging tests and the
 * large-trajectory bench (security review M8: a 10,000-step trajectory).
 */
import crypto from "node:crypto";
import { ensureTask, ensureTaskSet, upsertRun } from "../../db/repositories/catalog";
import { saveTrajectory, type StepValues } from "../../db/repositories/trajectories";
import { insertMissingScreenshots } from "../../db/repositories/screenshots";
import type { Db } from "../../db/database";
import type { ParsedAction, SomElement } from "../../server/domain/types";

export interface LongTrajectoryOptions {
  steps: number;
  /** Bytes of thought per step (default 2048). */
  thoughtBytes?: number;
  /** Elements per step (default 30). */
  marks?: number;
  model?: string;
  runName?: string;
  externalTaskId?: string;
  /** Screenshot hashes to use, cycled through; default a distinct made-up hash per step (no file behind it). */
  screenshotHashes?: string[];
  width?: number;
  height?: number;
}

const WORDS = "the agent looks at the search results and decides to open the product page because its price matches the filter set before".split(" ");

function thoughtOf(step: number, bytes: number): string {
  let s = `Step ${step}: `;
  for (let i = 0; s.length < bytes; i++) s += `${WORDS[(step * 7 + i) % WORDS.length]} `;
  return s.slice(0, bytes);
}

function elementsOf(step: number, n: number): SomElement[] {
  return Array.from({ length: n }, (_, i) => ({
    label: String(i),
    tag: i % 3 === 0 ? "a" : i % 3 === 1 ? "button" : "input",
    text: `Element ${i} of step ${step}: ${WORDS[(i + step) % WORDS.length]} ${WORDS[(i * 3 + step) % WORDS.length]}`,
    bbox: [20 + (i % 5) * 200, 40 + Math.floor(i / 5) * 110, 180, 32] as [number, number, number, number],
  }));
}

function actionOf(step: number, last: boolean): { action: ParsedAction; actionRaw: string } {
  if (last) return { action: { type: "answer", value: `final answer after ${step + 1} steps` }, actionRaw: `ANSWER; final answer after ${step + 1} steps` };
  if (step % 4 === 3) return { action: { type: "scroll", direction: "down" }, actionRaw: "Scroll [WINDOW]; down" };
  if (step % 4 === 1) return { action: { type: "type", target: String(step % 30), value: `query ${step}` }, actionRaw: `Type [${step % 30}]; query ${step}` };
  return { action: { type: "click", target: String(step % 30) }, actionRaw: `Click [${step % 30}]` };
}

export function fakeScreenshotHash(seed: string): string {
  return crypto.createHash("sha256").update(seed).digest("hex");
}

/** Writes the trajectory (and its screenshot rows) and returns its id. */
export async function seedLongTrajectory(db: Db, o: LongTrajectoryOptions): Promise<number> {
  const width = o.width ?? 1280;
  const height = o.height ?? 800;
  const marks = o.marks ?? 30;
  const thoughtBytes = o.thoughtBytes ?? 2048;
  const externalId = o.externalTaskId ?? `long-${o.steps}`;
  const hashes = o.screenshotHashes ?? Array.from({ length: o.steps }, (_, i) => fakeScreenshotHash(`${externalId}:${i}`));
  if (!o.screenshotHashes) {
    await insertMissingScreenshots(
      db,
      hashes.map((hash) => ({ hash, mime: "image/png", width, height, bytes: 150_000 })),
    );
  }
  const setId = await ensureTaskSet(db, { name: "Long trajectories", benchmark: "webvoyager" });
  const model = o.model ?? "long-model";
  const runId = await upsertRun(db, {
    runKey: `long:${o.runName ?? model}`,
    name: o.runName ?? "long run",
    agentName: "long-agent",
    model,
    sourceSystem: "test",
    config: null,
  });
  const taskId = await ensureTask(db, setId, {
    externalId,
    site: "LongSite",
    intent: `Find the product (${o.steps} steps)`,
    startUrl: "https://shop.example/",
    contentHash: `task-${externalId}`,
  });
  const steps: StepValues[] = Array.from({ length: o.steps }, (_, i) => {
    const { action, actionRaw } = actionOf(i, i === o.steps - 1);
    return {
      index: i,
      url: `https://shop.example/search?q=item+${Math.floor(i / 3)}&page=${i % 3}`,
      thought: thoughtOf(i, thoughtBytes),
      actionRaw,
      action,
      elements: elementsOf(i, marks),
      screenshotHash: hashes[i % hashes.length]!,
      durationMs: 1200 + (i % 7) * 100,
    };
  });
  const saved = await saveTrajectory(db, {
    runId,
    taskId,
    attempt: 0,
    finalAnswer: `final answer after ${o.steps} steps`,
    outcome: "answered",
    outcomeDetail: null,
    stepCount: o.steps,
    sourceFormat: "test",
    sourcePath: null,
    contentHash: `long-${externalId}-${o.steps}`,
    steps,
  });
  return saved.id;
}
