/**
 * Trajectories for evaluator tests, created the way real data arrives: a native bundle written with BundleWriter
 * and imported with runImport. Every step gets its own small PNG (distinct colour per trajectory and step), so
 * a test can tell exactly which steps' screenshots a judge received.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import type { BundleTrajectory } from "../../server/domain/imports/bundle";
import type { Outcome } from "../../server/domain/types";
import { BundleWriter } from "../../server/services/bundle-io";
import { runImport } from "../../server/services/imports/ingest";
import type { AppContext } from "../../server/context";
import { judgeSettings } from "../../server/config";

export interface SeedSpec {
  /** Number of steps of each trajectory. */
  steps: number;
  intent?: string;
  finalAnswer?: string | null;
  outcome?: Outcome;
  /** Also store an unmarked screenshot per step. */
  raw?: boolean;
  /** Step positions (0-based) that have no screenshot at all. */
  missingScreenshots?: number[];
  /** URL of each step (default: https://example.test/page/<i>). */
  urls?: (string | null)[];
  evaluatorConfig?: unknown;
  externalId?: string;
  thoughts?: boolean;
  /** The task's site (default "example"). */
  site?: string;
}

export interface SeededTrajectory {
  id: number;
  /** Per step index: the marked (or only) screenshot hash and the raw one. */
  shots: { index: number; marked: string | null; raw: string | null }[];
}

let colourSeed = 1;

async function stepPng(width = 48, height = 36): Promise<Buffer> {
  const s = colourSeed++;
  return sharp({
    create: { width, height, channels: 3, background: { r: (s * 37) % 256, g: Math.floor(s / 7) % 256, b: (s * 101 + 13) % 256 } },
  })
    .png()
    .toBuffer();
}

export async function seedTrajectories(ctx: AppContext, specs: SeedSpec[], runKey = `judge-test-${Date.now()}-${Math.random()}`): Promise<SeededTrajectory[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-judge-bundle-"));
  try {
    const writer = new BundleWriter(dir);
    const trajectories: BundleTrajectory[] = [];
    for (const [t, spec] of specs.entries()) {
      const steps: BundleTrajectory["steps"] = [];
      for (let i = 0; i < spec.steps; i++) {
        const missing = spec.missingScreenshots?.includes(i);
        const last = i === spec.steps - 1;
        steps.push({
          index: i,
          screenshot: missing ? null : await writer.addImage(await stepPng()),
          rawScreenshot: !missing && spec.raw ? await writer.addImage(await stepPng()) : null,
          marksBurnedIn: !!spec.raw,
          url: spec.urls ? (spec.urls[i] ?? null) : `https://example.test/page/${i}`,
          thought: spec.thoughts ? `Thinking about step ${i + 1}` : null,
          actionRaw: last ? `ANSWER; ${spec.finalAnswer ?? ""}` : `Click [${i + 1}]`,
          action: last ? { type: "answer", value: spec.finalAnswer ?? null } : { type: "click", target: String(i + 1) },
          elements: null,
          error: null,
          durationMs: null,
        });
      }
      trajectories.push({
        task: {
          taskSet: { name: "Judge tests", benchmark: "adhoc", description: null },
          externalId: spec.externalId ?? `task-${runKey}-${t}`,
          site: spec.site ?? "example",
          intent: spec.intent ?? `Find the answer to question ${t}`,
          startUrl: "https://example.test/",
          inputImages: [],
          referenceAnswers: [],
          evaluatorConfig: spec.evaluatorConfig,
          difficulty: null,
          tags: [],
          extra: null,
        },
        run: { runKey, name: "Judge test run", agentName: "test-agent", model: "agent-model", sourceSystem: "verdict-tests", config: null },
        attempt: 0,
        finalAnswer: spec.finalAnswer === undefined ? `answer ${t}` : spec.finalAnswer,
        outcome: spec.outcome ?? "answered",
        outcomeDetail: null,
        steps,
        verdicts: [],
      });
    }
    await writer.finish(trajectories, "judge tests");
    const report = await runImport(ctx, { path: dir, format: "native" });
    return report.trajectories.map((summary, t) => ({
      id: summary.id,
      shots: trajectories[t]!.steps.map((s) => ({ index: s.index, marked: s.screenshot?.sha256 ?? null, raw: s.rawScreenshot?.sha256 ?? null })),
    }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What an admin sets to let judges reach a model server on this machine: the tests' fake OpenAI endpoint listens on
 * 127.0.0.1, which the judge host policy refuses unless loopback servers are allowed.
 */
export const LOCAL_JUDGE_ENV = { VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535" } as const;

/** LOCAL_JUDGE_ENV as the judge services take it: read by the configuration (server/config.ts, judgeSettings). */
export const LOCAL_JUDGE_SETTINGS = judgeSettings(LOCAL_JUDGE_ENV);
