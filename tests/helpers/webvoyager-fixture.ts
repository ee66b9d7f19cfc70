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
      const text =
        i === 0
          ? `Now given a task: ${t.intent}  Please interact with ${t.url} and get the answer. \nObservation: elements: ${elements}`
          : `Observation: elements: ${elements}`;
      messages.push({
        role: "user",
        content: [
          { type: "text", text },
          { type: "image_url", image_url: { url: "data:image/png;base64,{b64_img}" } },
        ],
      });
      messages.push({ role: "assistant", content: `Thought: step ${i + 1} of the plan.\n\nAction: ${action}` });
    });
    fs.writeFileSync(path.join(dir, "interact_messages.json"), JSON.stringify(messages));
    for (let i = 0; i < t.actions.length; i++) {
      fs.writeFileSync(path.join(dir, `screenshot${i + 1}.png`), await tinyPng(seed++));
    }
  }
  return root;
}

/**
 * Transcript pieces for WebVoyager forks, which add their own user messages and rename things. Used with
 * `writeWebVoyagerTranscript` to build the exact message sequence a fork wrote.
 */
export const wvMessages = {
  /** The first observation: task text, start URL, element list and the screenshot. */
  task: (intent: string, url: string) => ({
    role: "user",
    content: [
      {
        type: "text",
        text: `Now given a task: ${intent}  Please interact with ${url} and get the answer. \nObservation: elements: [0]: <button> "Search";\t[1]: <input> "Query";`,
      },
      { type: "image_url", image_url: { url: "data:image/png;base64,{b64_img}" } },
    ],
  }),
  /** A later observation with its screenshot. */
  observation: () => ({
    role: "user",
    content: [
      { type: "text", text: `Observation: elements: [0]: <button> "Search";\t[1]: <input> "Query";` },
      { type: "image_url", image_url: { url: "data:image/png;base64,{b64_img}" } },
    ],
  }),
  /** An observation as WebVoyager leaves it after clipping the context (the screenshot was sent). */
  clipped: () => ({ role: "user", content: "Observation: A screenshot and some texts. (Omitted in context.)" }),
  /** A fork's extra user message that is not an observation. */
  reminder: (text = "Reflection: if the page did not change, try a different element.") => ({ role: "user", content: text }),
  /** WebVoyager's reply to an action that could not run, in the original's spelling or the corrected one. */
  failure: (spelling: "exected" | "executed") => ({
    role: "user",
    content: `The action you have chosen cannot be ${spelling}. Please double-check if you have selected the wrong Numerical Label or Action or Action format. Then provide the revised Thought and Action.`,
  }),
  reply: (action: string, thought = "working on it.") => ({ role: "assistant", content: `Thought: ${thought}\n\nAction: ${action}` }),
};

/** Writes one task folder with the given messages and `screenshot<N>.png` for each N (distinct images). */
export async function writeWebVoyagerTranscript(dir: string, messages: unknown[], screenshots: number[], seedBase = 1): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "interact_messages.json"), JSON.stringify([{ role: "system", content: "You are a web agent (test fixture)." }, ...messages]));
  for (const n of screenshots) fs.writeFileSync(path.join(dir, `screenshot${n}.png`), await tinyPng(seedBase + n));
  return dir;
}
