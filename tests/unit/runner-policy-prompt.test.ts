import { describe, expect, it } from "vitest";
import {
  buildPolicyMessages,
  formatElementLines,
  MAX_ELEMENTS_LISTED,
  replyText,
  RUNNER_PROMPT_VERSION,
  RUNNER_SYSTEM_PROMPT,
  type PromptInput,
  type PromptMessage,
  type PromptPastStep,
} from "../../server/domain/live/policy-prompt";
import { parsePolicyReply } from "../../server/domain/live/action-text";

const img = (n: number) => `data:image/png;base64,IMG${n}`;

function input(history: PromptPastStep[], over: Partial<PromptInput> = {}): PromptInput {
  return {
    intent: "Find the total time of the Red Lentil Soup.",
    startUrl: "http://127.0.0.1:4517/recipes/",
    stepIndex: history.length,
    maxSteps: 15,
    url: "http://127.0.0.1:4517/recipes/search.html?q=lentil",
    title: "Search · Saffron & Thyme",
    tabs: [{ index: 0, url: "http://127.0.0.1:4517/recipes/search.html?q=lentil", active: true }],
    elements: [
      { label: "0", bbox: [0, 0, 10, 10], tag: "a", text: "Home" },
      { label: "1", bbox: [0, 0, 10, 10], tag: "input", text: "e.g. lentil" },
      { label: "2", bbox: [0, 0, 10, 10], tag: "a", text: "Red Lentil Soup with Cumin" },
    ],
    screenshot: img(history.length),
    history,
    keepScreenshots: 3,
    ...over,
  };
}

function past(n: number): PromptPastStep[] {
  return Array.from({ length: n }, (_, i) => ({
    index: i,
    url: `http://127.0.0.1:4517/recipes/p${i}`,
    reply: replyText(`thought ${i}`, `click [${i}]`),
    error: i === n - 1 ? "element [9] is not on the page" : null,
    screenshot: img(i),
  }));
}

const images = (m: PromptMessage[]) =>
  m.flatMap((x) => (x.role === "user" ? x.content.filter((p) => p.type === "image_url").map((p) => (p as { image_url: { url: string } }).image_url.url) : []));
const lastText = (m: PromptMessage[]) => {
  const last = m[m.length - 1]!;
  if (last.role !== "user") throw new Error("last message is not the user's");
  return (last.content[0] as { text: string }).text;
};

describe("the VLM policy prompt", () => {
  it("is versioned and its own", () => {
    expect(RUNNER_PROMPT_VERSION).toMatch(/^verdict-live-v\d+$/);
    expect(RUNNER_SYSTEM_PROMPT).toMatch(/Reasoning: /);
    expect(RUNNER_SYSTEM_PROMPT).toMatch(/stop \[answer\]/);
  });

  it("first step: system, then one user turn with task, page, elements and the screenshot", () => {
    const m = buildPolicyMessages(input([]));
    expect(m.map((x) => x.role)).toEqual(["system", "user"]);
    const text = lastText(m);
    expect(text).toContain("Task: Find the total time of the Red Lentil Soup.");
    expect(text).toContain("Step 1 of at most 15.");
    expect(text).toContain("Page: http://127.0.0.1:4517/recipes/search.html?q=lentil (Search · Saffron & Thyme)");
    expect(text).toContain("[2] <a> Red Lentil Soup with Cumin");
    expect(text).not.toContain("Open tabs");
    expect(images(m)).toEqual([img(0)]);
  });

  it("replays earlier turns as user/assistant pairs and keeps only the last screenshots", () => {
    const m = buildPolicyMessages(input(past(5)));
    expect(m.map((x) => x.role)).toEqual(["system", ...Array(5).fill(["user", "assistant"]).flat(), "user"]);
    // Current screenshot plus the two most recent earlier ones.
    expect(images(m)).toEqual([img(3), img(4), img(5)]);
    expect(JSON.stringify(m[1])).toContain("screenshot no longer shown");
    expect((m[2] as { content: string }).content).toBe("Reasoning: thought 0\nAction: click [0]");
    expect(lastText(m)).toContain("Your previous action failed: element [9] is not on the page");
    // Each earlier reply is one the parser reads back.
    expect(parsePolicyReply((m[4] as { content: string }).content).action).toEqual({ type: "click", target: "1" });
  });

  it("honours the screenshot window and the last-step hint", () => {
    expect(images(buildPolicyMessages(input(past(4), { keepScreenshots: 1 })))).toEqual([img(4)]);
    expect(images(buildPolicyMessages(input(past(2), { keepScreenshots: 10 })))).toEqual([img(0), img(1), img(2)]);
    expect(lastText(buildPolicyMessages(input(past(2), { maxSteps: 3 })))).toContain("This is the last step");
  });

  it("lists tabs when there are several, and caps long element lists", () => {
    const tabs = [
      { index: 0, url: "http://a/", active: false },
      { index: 1, url: "http://b/", active: true },
    ];
    expect(lastText(buildPolicyMessages(input([], { tabs })))).toContain("  [1] http://b/ (current)");
    const many = Array.from({ length: MAX_ELEMENTS_LISTED + 5 }, (_, i) => ({ label: String(i), bbox: null, tag: "a", text: `item ${i} ${"x".repeat(200)}` }));
    const lines = formatElementLines(many).split("\n");
    expect(lines).toHaveLength(MAX_ELEMENTS_LISTED + 1);
    expect(lines.at(-1)).toBe("… and 5 more elements not listed");
    expect(lines[0]!.length).toBeLessThan(120);
    expect(formatElementLines([])).toMatch(/no interactive elements/);
  });
});
