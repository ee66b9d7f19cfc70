/**
 * Heuristic evaluators' speed (issue 16: 10,000 trajectories × 15 steps ≤ 2 s):
 * - the four pure heuristics over 10,000 generated trajectories of 15 steps each, held in memory (seeded, so every
 *   run sees the same data): 20 Set-of-Marks elements with text per step, a few pages per trajectory, perceptual
 *   hashes with some near-identical neighbours, answers of which about a third are not on any page (the slow path of
 *   the answer check, which reads every element);
 * - the same through the service on a real SQLite database (1,000 of those trajectories saved first, not timed):
 *   reading steps, judging and storing four verdicts per trajectory.
 * The in-memory figure is the median of several runs after one warm-up run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureTaskSet, upsertRun, upsertTask } from "../../db/repositories/catalog";
import { countVerdicts } from "../../db/repositories/evaluation/verdicts";
import { saveTrajectory } from "../../db/repositories/trajectories";
import { closeDatabase, withTransaction } from "../../db/database";
import { createAppContext } from "../../server/context";
import { createRng, type Rng } from "../../server/domain/agreement";
import { HEURISTIC_EVALUATORS, type HeuristicStep, type HeuristicTrajectory } from "../../server/domain/evaluation/heuristics/index";
import type { ParsedAction, SomElement } from "../../server/domain/types";
import { evaluateHeuristicVerdicts } from "../../server/services/evaluation";
import type { BenchFigure } from "./types";

const TRAJECTORIES = 10_000;
const STEPS = 15;
const ELEMENTS = 20;
const DB_TRAJECTORIES = 1_000;
const RUNS = 5;

const WORDS = ["kettle", "blue", "price", "basket", "review", "delivery", "stock", "colour", "brand", "size", "offer", "account", "search", "filter", "sort"];

function randomHash(rng: Rng): string {
  let s = "";
  for (let i = 0; i < 64; i++) s += Math.floor(rng() * 16).toString(16);
  return s;
}

/** Flips `bits` random bits of a hex hash: a near-identical screen for small counts. */
function nudge(hash: string, bits: number, rng: Rng): string {
  const digits = hash.split("");
  for (let b = 0; b < bits; b++) {
    const i = Math.floor(rng() * digits.length);
    digits[i] = (parseInt(digits[i]!, 16) ^ (1 << Math.floor(rng() * 4))).toString(16);
  }
  return digits.join("");
}

export function generate(n: number, seed: number): HeuristicTrajectory[] {
  const rng = createRng(seed);
  const word = () => WORDS[Math.floor(rng() * WORDS.length)]!;
  const out: HeuristicTrajectory[] = [];
  for (let t = 0; t < n; t++) {
    const steps: HeuristicStep[] = [];
    let dhash = randomHash(rng);
    // Agents stay on a page for a few steps: a click opens another page half of the time.
    const pages = 2 + Math.floor(rng() * 4);
    let url = `https://shop.example/0?q=${word()}`;
    for (let i = 0; i < STEPS; i++) {
      const elements: SomElement[] = [];
      for (let e = 0; e < ELEMENTS; e++) {
        elements.push({ label: String(e), bbox: [e * 40, (e % 5) * 30, 36, 24], tag: "a", text: `${word()} ${word()} £${(rng() * 100).toFixed(2)}` });
      }
      const last = i === STEPS - 1;
      const r = rng();
      const action: ParsedAction = last
        ? { type: "answer", value: "x" }
        : r < 0.6
          ? { type: "click", target: String(Math.floor(rng() * (ELEMENTS + 1))), coords: rng() < 0.5 ? [rng() * 800, rng() * 150] : null }
          : r < 0.8
            ? { type: "type", target: String(Math.floor(rng() * ELEMENTS)), value: word() }
            : { type: "scroll", direction: "down" };
      dhash = rng() < 0.3 ? nudge(dhash, 3, rng) : randomHash(rng);
      steps.push({
        index: i,
        action,
        url,
        elements,
        screenshotHash: `shot-${t}-${i}`,
        screenshotDhash: dhash,
        screenshotSize: { width: 1280, height: 800 },
      });
      if (action.type === "click" && rng() < 0.5) url = `https://shop.example/${Math.floor(rng() * pages)}?q=${word()}`;
    }
    const r = rng();
    out.push({
      intent: "Find the price of the blue kettle",
      finalAnswer: r < 0.1 ? null : r < 0.4 ? `Zorblax costs ${(rng() * 1000).toFixed(0)}.5` : `The ${word()} is £${(rng() * 100).toFixed(2)}`,
      outcome: r < 0.05 ? "step_limit" : "answered",
      steps,
    });
  }
  return out;
}

function runAll(trajectories: HeuristicTrajectory[]): number {
  let failures = 0;
  for (const t of trajectories) for (const h of HEURISTIC_EVALUATORS) if (h.evaluate(t).verdict === "failure") failures++;
  return failures;
}

export async function benchHeuristics(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const data = generate(TRAJECTORIES, 16);
  runAll(data); // warm-up
  const times: number[] = [];
  let failures = 0;
  for (let r = 0; r < RUNS; r++) {
    const started = performance.now();
    failures = runAll(data);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)]!;
  figures.push({
    name: `${HEURISTIC_EVALUATORS.length} heuristics, ${TRAJECTORIES} traj. × ${STEPS} steps (memory)`,
    value: ms,
    unit: "ms",
    target: "≤ 2000 ms",
    ok: ms <= 2000,
  });
  figures.push({ name: "  verdicts that fired (of 40,000)", value: failures, unit: "failures" });

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-heuristics-"));
  const ctx = createAppContext({ dbPath: path.join(dir, "bench.db"), dataDir: dir, chromiumPath: "/usr/bin/chromium" });
  try {
    const taskSetId = await ensureTaskSet(ctx.db, { name: "Heuristics bench", benchmark: "adhoc" });
    const runId = await upsertRun(ctx.db, {
      runKey: "bench:heuristics",
      name: "bench",
      agentName: "bench agent",
      model: "m",
      sourceSystem: "bench",
      config: null,
    });
    const { id: taskId } = await upsertTask(ctx.db, taskSetId, {
      externalId: "kettle",
      site: "shop",
      intent: data[0]!.intent,
      startUrl: null,
      contentHash: "bench-task",
    });
    const ids: number[] = [];
    await withTransaction(ctx.db, async () => {
      for (const [a, t] of data.slice(0, DB_TRAJECTORIES).entries()) {
        const { id } = await saveTrajectory(ctx.db, {
          runId,
          taskId,
          attempt: a,
          finalAnswer: t.finalAnswer,
          outcome: t.outcome,
          outcomeDetail: null,
          stepCount: t.steps.length,
          sourceFormat: "bench",
          sourcePath: null,
          contentHash: `bench-${a}`,
          steps: t.steps.map((s) => ({ index: s.index, url: s.url, thought: null, actionRaw: null, action: s.action, elements: s.elements })),
        });
        ids.push(id);
      }
    });
    const started = performance.now();
    const report = await evaluateHeuristicVerdicts({ db: ctx.db, store: ctx.store }, { trajectoryIds: ids });
    const dbMs = performance.now() - started;
    if ((await countVerdicts(ctx.db)) !== DB_TRAJECTORIES * HEURISTIC_EVALUATORS.length || report.evaluated !== DB_TRAJECTORIES) {
      throw new Error(`expected ${DB_TRAJECTORIES} trajectories evaluated, got ${report.evaluated}`);
    }
    figures.push({ name: `service: read, judge, store, ${DB_TRAJECTORIES} traj. × ${STEPS} steps (SQLite)`, value: dbMs, unit: "ms" });
    figures.push({ name: "  at that rate, 10,000 trajectories", value: (dbMs * TRAJECTORIES) / DB_TRAJECTORIES / 1000, unit: "s" });
  } finally {
    await closeDatabase(ctx.db);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
