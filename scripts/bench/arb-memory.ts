/**
 * AgentRewardBench import in bounded memory: generates one ~200 MB trajectory JSON shaped like the dataset's
 * (per-step accessibility-tree objects, tree text, chat transcripts, element boxes; screenshots beside it), imports
 * it with the real ingest in a child process, and reports the child's peak resident memory. The whole file must
 * never be held in memory: target < 300 MB. Size with BENCH_ARB_MB (default 200).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import type { BenchFigure } from "./types";

const STEPS = 30;
const TARGET_MB = 300;

function axNode(i: number, step: number): Record<string, unknown> {
  return {
    nodeId: String(i),
    ignored: false,
    role: { type: "role", value: i % 7 === 0 ? "link" : "generic" },
    chromeRole: { type: "internalRole", value: 88 },
    name: { type: "computedString", value: `Node ${i} of step ${step} — listing title with some words`, sources: [{ type: "contents" }] },
    properties: [
      { name: "focusable", value: { type: "booleanOrUndefined", value: i % 3 === 0 } },
      { name: "browsergym_id", value: { type: "string", value: String(i) } },
    ],
    childIds: [String(i * 2 + 1), String(i * 2 + 2)],
    backendDOMNodeId: 1000 + i,
    frameId: "8C2D3F0E9B1A4C5D6E7F8091A2B3C4D5",
  };
}

/** Writes the trajectory step by step so the generator itself stays small too. Returns the file size. */
async function writeTrajectory(file: string, targetBytes: number): Promise<number> {
  const out = fs.createWriteStream(file);
  let failed: Error | null = null;
  out.on("error", (e) => {
    failed = e;
  });
  const write = async (s: string) => {
    if (failed) throw failed;
    if (!out.write(s)) await new Promise<void>((resolve) => out.once("drain", resolve));
  };
  const head = {
    benchmark: "visualwebarena",
    agent: "GenericAgent-gpt-4o-2024-11-20",
    model: "gpt-4o-2024-11-20",
    valid: true,
    experiment: "GenericAgent-gpt-4o-2024-11-20_on_visualwebarena.resized",
    goal: "Find the cheapest red bicycle listed this week and report its price.",
    seed: 23,
    model_args: { model_name: "gpt-4o-2024-11-20", temperature: 0.1 },
    flags: { obs: { use_screenshot: true, use_som: true, use_ax_tree: true } },
    summary_info: { n_steps: STEPS - 1, cum_reward: 1.0, cum_raw_reward: 1, err_msg: null, stack_trace: null, terminated: true, truncated: false },
    package_version: "0.3.2",
  };
  await write(JSON.stringify(head).slice(0, -1) + ',"steps":[');
  // Most of a real file is the per-step accessibility tree; size it so the file reaches the target.
  const nodeBytes = JSON.stringify(axNode(12345, 1)).length + 1;
  const perStep = targetBytes / STEPS;
  const nodes = Math.max(100, Math.floor((perStep * 0.96) / nodeBytes));
  for (let k = 0; k < STEPS; k++) {
    const props: Record<string, unknown> = {};
    for (let b = 0; b < 400; b++)
      props[String(b)] = { visibility: 1.0, bbox: [(b % 40) * 30, Math.floor(b / 40) * 60, 28, 20], clickable: b % 2 === 0, set_of_marks: b % 2 === 0 };
    const treeText = Array.from({ length: Math.floor(nodes / 8) }, (_, i) => `[${i}] link 'Listing ${i} of step ${k}', clickable, visible`).join("\n");
    const step = {
      num: k,
      reasoning: `Step ${k}: scanning the listings for a red bicycle.`,
      action: k === STEPS - 1 ? null : k === STEPS - 2 ? 'send_msg_to_user("$120")' : `click('${(k * 2) % 400}')`,
      screenshot_path: `trajectories/screenshots/visualwebarena/GenericAgent-gpt-4o-2024-11-20/visualwebarena.resized.3/screenshot_step_${k}.png`,
      url: `http://localhost:9980/index.php?page=search&p=${k}`,
      open_pages_urls: [`http://localhost:9980/index.php?page=search&p=${k}`],
      focused_element: "",
      last_action_error: "",
      stats: { step_elapsed: 2.5 },
      axtree: treeText,
      axtree_pruned: treeText.slice(0, 20000),
      chat_messages: [
        {
          role: "user",
          content: [
            { type: "text", text: treeText.slice(0, 100000) },
            { type: "image_url", image_url: "REMOVED" },
          ],
        },
      ],
      bounding_boxes: props,
      extra_element_properties: props,
    };
    let text = JSON.stringify(step);
    // Splice the big node list in as text, one chunk at a time.
    text = text.slice(0, -1) + ',"axtree_obj":{"nodes":[';
    await write((k ? "," : "") + text);
    for (let i = 0; i < nodes; i += 500) {
      const chunk = [];
      for (let j = i; j < Math.min(nodes, i + 500); j++) chunk.push(JSON.stringify(axNode(j, k)));
      await write((i ? "," : "") + chunk.join(","));
    }
    await write("]}}");
  }
  await write("]}");
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return fs.statSync(file).size;
}

export async function benchArbMemory(): Promise<BenchFigure[]> {
  const targetMb = Number(process.env.BENCH_ARB_MB ?? 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-bench-arb-"));
  try {
    const root = path.join(dir, "agent-reward-bench", "trajectories");
    const file = path.join(
      root,
      "cleaned",
      "visualwebarena",
      "GenericAgent-gpt-4o-2024-11-20",
      "GenericAgent-gpt-4o-2024-11-20_on_visualwebarena.resized",
      "visualwebarena.resized.3.json",
    );
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const shots = path.join(root, "screenshots", "visualwebarena", "GenericAgent-gpt-4o-2024-11-20", "visualwebarena.resized.3");
    fs.mkdirSync(shots, { recursive: true });
    for (let k = 0; k < STEPS; k++) {
      const png = await sharp({ create: { width: 1280, height: 720, channels: 3, background: { r: (k * 37) % 256, g: 120, b: 200 } } })
        .png()
        .toBuffer();
      fs.writeFileSync(path.join(shots, `screenshot_step_${k}.png`), png);
    }
    const bytes = await writeTrajectory(file, targetMb * 1024 * 1024);

    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), "arb-memory-child.ts");
    const started = performance.now();
    const r = spawnSync(process.execPath, ["--import", "tsx", child, file, path.join(dir, "data")], {
      cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".."),
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    const seconds = (performance.now() - started) / 1000;
    if (r.status !== 0) throw new Error(`the import child failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-2000)}`);
    const result = JSON.parse(r.stdout.trim().split("\n").pop()!) as { maxRssKb: number; steps: number; screenshots: number; elements: number };
    if (result.steps !== STEPS) throw new Error(`imported ${result.steps} steps, expected ${STEPS}`);
    const peakMb = result.maxRssKb / 1024;
    return [
      { name: "ARB file size", value: bytes / 1024 / 1024, unit: "MB" },
      { name: "ARB import wall time (child process)", value: seconds, unit: "s" },
      { name: "ARB import throughput", value: bytes / 1024 / 1024 / seconds, unit: "MB/s" },
      { name: "ARB import peak RSS", value: peakMb, unit: "MB", target: `< ${TARGET_MB} MB`, ok: peakMb < TARGET_MB },
      { name: "ARB steps imported (with screenshots)", value: result.screenshots, unit: `of ${result.steps} steps` },
      { name: "ARB SoM elements on step 0", value: result.elements, unit: "elements" },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
