/**
 * Writes small WebVoyager-style result folders for tests that must not depend on ../shared:
 * `task<Site>--<n>/interact_messages.json` + `screenshot<N>.png` (tiny PNGs, distinct per step).
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";

export interface FixtureTask {
  id: string;
  intent: string;
  url: string;
  /** Assistant action texts, e.g. "Click [3]", "ANSWER; 42". */
  actions: string[];
}

export async function tinyPng(seed: number, width = 64, height = 48): Promise<Buffer> {
  const channel = (k: number) => (seed * 67 + k * 101) % 256;
  return sharp({ create: { width, height, channels: 3, background: { r: channel(1), g: channel(2), b: channel(3) } } })
    .png()
    .toBuffer();
}

export async function writeWebVoyagerFixture(root: string, tasks: FixtureTask[], seedBase = 1): Promise<string> {
  fs.mkdirSync(root, { recursive: true });
  let seed = seedBase;
  for (const t of tasks) {
    const dir = path.join(root, `task${t.id}`);
    fs.mkdirSync(dir, { recursive: true });
    const messages: unknown[] = [{ role: "system", content: "You are a web agent (test fixture)." }];
    t.actions.forEach((action, i) => {
      const elements = `[0]: <button> "Search";\t[1]: <input> "Query";\t[2]: "Results", "results";`;
      const text = i === 0
        ? `Now given a task: ${t.intent}  Please interact with ${t.url} and get the answer. \nObservation: elements: ${elements}`
        : `Observation: elements: ${elements}`;
      messages.push({ role: "user", content: [{ type: "text", text }, { type: "image_url", image_url: { url: "data:image/png;base64,{b64_img}" } }] });
      messages.push({ role: "assistant", content: `Thought: step ${i + 1} of the plan.\n\nAction: ${action}` });
    });
    fs.writeFileSync(path.join(dir, "interact_messages.json"), JSON.stringify(messages));
    for (let i = 0; i < t.actions.length; i++) {
      fs.writeFileSync(path.join(dir, `screenshot${i + 1}.png`), await tinyPng(seed++));
    }
  }
  return root;
}
