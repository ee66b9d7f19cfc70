/**
 * Steps as an assistant reads them: each step's action, thought, URL and error as text, followed by its screenshot
 * as MCP image content. Screenshots are the player's WebP variant, scaled down to SCREENSHOT_WIDTH, and one answer
 * carries at most MAX_IMAGES images and MAX_IMAGE_BYTES of them: past that a step says its screenshot was left out
 * and how to ask for it, so a long trajectory cannot flood the assistant's context.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Actor } from "../../domain/access/actor";
import { fromJsonText, type JsonText } from "../../domain/player/paging";
import { mayFetchScreenshot } from "../../services/access";
import { CorruptImageError, getScreenshotImage } from "../../services/images";
import type { PlayerStep } from "../../services/trajectory-views";
import type { McpCall } from "./tool-kit";

export const SCREENSHOT_WIDTH = 960;
export const MAX_IMAGES = 8;
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;
/** Most steps one call returns; screenshots are what makes a step large. */
export const MAX_STEPS_PER_CALL = 20;

type Content = CallToolResult["content"][number];

function stepText(step: PlayerStep): string {
  const lines = [`Step ${step.index + 1}${step.url ? ` · ${step.url}` : ""}`];
  if (step.thought) lines.push(`Thought: ${step.thought}`);
  lines.push(`Action: ${step.actionRaw ?? step.action.type}`);
  if (step.error) lines.push(`Error: ${step.error}`);
  return lines.join("\n");
}

/** The images still allowed in this answer. */
class ImageBudget {
  private images = 0;
  private bytes = 0;
  take(size: number): boolean {
    if (this.images >= MAX_IMAGES || this.bytes + size > MAX_IMAGE_BYTES) return false;
    this.images += 1;
    this.bytes += size;
    return true;
  }
}

async function screenshotContent(call: McpCall, actor: Actor, step: PlayerStep, budget: ImageBudget): Promise<Content> {
  const hash = step.screenshot?.hash ?? step.rawScreenshot?.hash;
  if (!hash) return { type: "text", text: `(step ${step.index + 1} has no screenshot)` };
  // The same rule as the screenshot route: annotators get only their campaigns' screenshots.
  if (!(await mayFetchScreenshot(call.app.db, actor, hash))) return { type: "text", text: `(step ${step.index + 1}'s screenshot is not yours to see)` };
  let image;
  try {
    image = await getScreenshotImage(call.app, hash, { kind: "variant", width: SCREENSHOT_WIDTH, format: "webp" });
  } catch (e) {
    if (e instanceof CorruptImageError) return { type: "text", text: `(step ${step.index + 1}'s screenshot is damaged and cannot be shown)` };
    throw e;
  }
  if (!budget.take(image.body.byteLength)) {
    return {
      type: "text",
      text: `(step ${step.index + 1}'s screenshot left out: this answer holds its ${MAX_IMAGES} images or ${MAX_IMAGE_BYTES >> 20} MiB; ask for fewer steps from here)`,
    };
  }
  return { type: "image", data: Buffer.from(image.body).toString("base64"), mimeType: image.mime };
}

/** A window of steps (as the player's step procedures answer) with their screenshots, under the budget. */
export async function stepsResult(call: McpCall, header: string, steps: JsonText<PlayerStep[]>, screenshots: boolean): Promise<CallToolResult> {
  const actor: Actor = { userId: call.identity.session.userId, name: call.identity.session.name, role: call.identity.session.role };
  const content: Content[] = [{ type: "text", text: header }];
  const budget = new ImageBudget();
  for (const step of fromJsonText(steps)) {
    content.push({ type: "text", text: stepText(step) });
    if (screenshots) content.push(await screenshotContent(call, actor, step, budget));
  }
  return { content };
}
