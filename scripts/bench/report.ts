/**
 * A shareable report (server/services/trajectories/static-report.ts) of 1,000 generated trajectories
 * (scripts/bench/analytics-data.ts: labels of three annotators, consolidated labels, two judges), each step with its
 * own screenshot (a 320×200 PNG with a band of noise, about 40 KB, so that the images do not compress away), Set-of-Marks boxes and a click:
 * time to build the pages and to write the folder and the zip, and their sizes. Scale with BENCH_REPORT_TRAJECTORIES.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { closeDatabase, sqliteClient, tablesOf } from "../../db/database";
import { buildReport, writeReport } from "../../server/services/trajectories";
import { ScreenshotStore } from "../../server/storage/screenshot-store";
import { generateAnalyticsData } from "./analytics-data";
import type { BenchFigure } from "./types";

const WIDTH = 320;
const HEIGHT = 200;
/** Rows of noise at the top of each screenshot: about 40 KB a PNG, in the range of a real page's screenshot. */
const NOISE_ROWS = 40;

function folderBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) total += fs.statSync(path.join(e.parentPath, e.name)).size;
  return total;
}

/** Steps for every generated trajectory (its step count), each with a screenshot of its own in the store. */
async function addSteps(db: Parameters<typeof sqliteClient>[0], store: ScreenshotStore): Promise<number> {
  const sqlite = sqliteClient(db);
  const { trajectories } = tablesOf(db);
  const rows = await db.select({ id: trajectories.id, steps: trajectories.stepCount }).from(trajectories).orderBy(trajectories.id);
  const insertShot = sqlite.prepare("insert into screenshots (hash, mime, width, height, bytes) values (?, 'image/png', ?, ?, ?)");
  const insertStep = sqlite.prepare(
    "insert into steps (trajectory_id, idx, screenshot_hash, url, thought, action_raw, action, elements) values (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const elements = JSON.stringify(Array.from({ length: 12 }, (_, i) => ({ label: String(i), bbox: [10 + (i % 4) * 75, 10 + Math.floor(i / 4) * 60, 60, 40] })));
  let steps = 0;
  for (const r of rows) {
    for (let s = 0; s < r.steps; s++) {
      const pixels = Buffer.alloc(WIDTH * HEIGHT * 3, 240);
      crypto.randomFillSync(pixels, 0, WIDTH * NOISE_ROWS * 3);
      const png = await sharp(pixels, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
        .png({ compressionLevel: 1 })
        .toBuffer();
      const hash = crypto.createHash("sha256").update(png).digest("hex");
      await store.originals.put(hash, png, "image/png");
      insertShot.run(hash, WIDTH, HEIGHT, png.length);
      const target = String(s % 12);
      insertStep.run(
        r.id,
        s,
        hash,
        `https://bench.test/page/${s}`,
        `Step ${s}: looking for the next link`,
        `Click [${target}]`,
        JSON.stringify({ type: "click", target }),
        elements,
      );
      steps++;
    }
  }
  return steps;
}

export async function benchReport(): Promise<BenchFigure[]> {
  const n = Number(process.env.BENCH_REPORT_TRAJECTORIES ?? 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-report-"));
  try {
    const { db } = await generateAnalyticsData(path.join(dir, "bench.db"), { trajectories: n });
    const store = new ScreenshotStore(path.join(dir, "data"));
    const steps = await addSteps(db, store);
    const actor = { userId: "bench", name: "bench", role: "admin" as const };
    let t = performance.now();
    const files = await buildReport(db, actor, { selection: {}, labels: "all", judges: "all", agreement: true });
    const buildMs = performance.now() - t;
    t = performance.now();
    await writeReport(store, files, path.join(dir, "report"));
    const folderMs = performance.now() - t;
    t = performance.now();
    await writeReport(store, files, path.join(dir, "report.zip"));
    const zipMs = performance.now() - t;
    const folder = folderBytes(path.join(dir, "report"));
    const screenshots = folderBytes(path.join(dir, "report", "images"));
    const zip = fs.statSync(path.join(dir, "report.zip")).size;
    await closeDatabase(db);
    const mb = (b: number) => b / 1024 / 1024;
    return [
      { name: `trajectories / steps with a screenshot each`, value: n, unit: `trajectories, ${steps.toLocaleString("en-US")} steps` },
      { name: "build the pages and data (database reads)", value: buildMs / 1000, unit: "s" },
      { name: "write the folder (copy screenshots)", value: folderMs / 1000, unit: "s" },
      { name: "write the zip", value: zipMs / 1000, unit: "s" },
      { name: "folder size", value: mb(folder), unit: "MB" },
      { name: "of which pages, data and manifest", value: mb(folder - screenshots), unit: "MB" },
      { name: "zip size", value: mb(zip), unit: "MB" },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
