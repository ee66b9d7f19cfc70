/**
 * The VLM policy: asks a model behind any OpenAI-compatible endpoint for the next action, with Verdict's own
 * versioned prompt (server/domain/live/policy-prompt.ts), and parses its reply with the runner's action grammar.
 *
 * Endpoint settings come from a judge configuration (base URL, model, key, temperature, seed, output tokens,
 * timeout, retries): the policy needs exactly the same connection settings as a judge, and the key stays on the
 * server either way. The judge-only fields of a configuration (its prompt version, options and prices) play no part.
 *
 * The policy keeps the marked screenshots and replies of its run, so each call can show the last few screenshots
 * and the earlier replies in the model's own words.
 */
import crypto from "node:crypto";
import type { Db } from "../../../db/database";
import { judgeSettings } from "../../config";
import type { Policy, PolicyDecision, PolicyObservation } from "../../browser/policy";
import { parsePolicyReply } from "../../domain/live/action-text";
import { buildPolicyMessages, replyText, RUNNER_PROMPT_VERSION, type PromptMessage, type PromptPastStep } from "../../domain/live/policy-prompt";
import {
  createJudgeClient,
  type ChatMessage,
  type JudgeClient,
  type JudgeEndpoint,
  type RetryPolicy,
  endpointErrorText,
  requireJudgeConfig,
  judgeEndpointOf,
  type Env,
} from "../evaluation";

export interface VlmPolicyOptions {
  client: JudgeClient;
  /** Shown in the UI and stored on the run: "vlm:<configuration>". */
  name: string;
  keepScreenshots: number;
  /** Secret to scrub from error messages before they are stored (they are also cut short). */
  apiKey?: string;
}

export interface VlmPolicyUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
}

function dataUrl(png: Buffer): string {
  return `data:image/png;base64,${png.toString("base64")}`;
}

/**
 * The messages as sent, each image replaced by `sha256:<hex>` of its bytes: screenshots then name the stored step
 * images (the store is content-addressed), and the stored prompt stays small.
 */
export function promptRecord(messages: PromptMessage[]): { version: string; messages: unknown[] } {
  const hashed = messages.map((m) => {
    if (typeof m.content === "string") return m;
    return {
      ...m,
      content: m.content.map((part) => {
        if (part.type !== "image_url") return part;
        const url = part.image_url.url;
        const comma = url.indexOf(",");
        const bytes = url.startsWith("data:") && comma > 0 ? Buffer.from(url.slice(comma + 1), "base64") : Buffer.from(url);
        return { type: "image_url", image_url: { ...part.image_url, url: `sha256:${crypto.createHash("sha256").update(bytes).digest("hex")}` } };
      }),
    };
  });
  return { version: RUNNER_PROMPT_VERSION, messages: hashed };
}

export function createVlmPolicy(opts: VlmPolicyOptions): Policy & { usage(): VlmPolicyUsage } {
  const screenshots = new Map<number, string>();
  const replies = new Map<number, string>();
  const usage: VlmPolicyUsage = { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0 };
  return {
    name: opts.name,
    usage: () => ({ ...usage }),
    async nextAction(obs: PolicyObservation): Promise<PolicyDecision> {
      const current = dataUrl(obs.markedScreenshot);
      screenshots.set(obs.stepIndex, current);
      // Only the window's screenshots are ever sent again; older ones can go.
      for (const k of screenshots.keys()) if (k < obs.stepIndex - opts.keepScreenshots) screenshots.delete(k);
      const history: PromptPastStep[] = obs.history.map((h) => ({
        index: h.index,
        url: h.url,
        reply: replies.get(h.index) ?? replyText(h.thought, h.actionRaw),
        error: h.error,
        screenshot: screenshots.get(h.index) ?? null,
      }));
      const messages = buildPolicyMessages({
        intent: obs.task.intent,
        startUrl: obs.task.startUrl,
        stepIndex: obs.stepIndex,
        maxSteps: obs.maxSteps,
        url: obs.url,
        title: obs.title,
        tabs: obs.tabs,
        elements: obs.elements,
        screenshot: current,
        history,
        keepScreenshots: opts.keepScreenshots,
        inputImages: (obs.task.inputImages ?? []).map((i) => i.dataUrl),
      });
      const prompt = promptRecord(messages);
      let result;
      try {
        result = await opts.client.complete(messages as ChatMessage[], { signal: obs.signal });
      } catch (e) {
        throw new Error(endpointErrorText((e as Error).message, opts.apiKey));
      }
      usage.calls++;
      usage.inputTokens += result.inputTokens ?? 0;
      usage.outputTokens += result.outputTokens ?? 0;
      usage.latencyMs += result.latencyMs;
      const content = result.content ?? (result.refusal ? `Reasoning: the model refused: ${result.refusal}` : "");
      replies.set(obs.stepIndex, content);
      const parsed = parsePolicyReply(content);
      return { thought: parsed.thought, actionRaw: parsed.actionRaw ?? content.trim(), action: parsed.action, prompt };
    },
  };
}

export interface PolicyEndpointDeps {
  db: Db;
  env: Env;
  retryPolicy?: RetryPolicy;
  clientFactory?: (e: JudgeEndpoint, p?: RetryPolicy) => JudgeClient;
}

/** Builds the VLM policy of a run from a judge configuration's endpoint settings. */
export async function vlmPolicyFromConfig(
  deps: PolicyEndpointDeps,
  judgeConfigId: number,
  keepScreenshots: number,
): Promise<Policy & { usage(): VlmPolicyUsage; model: string; configName: string }> {
  const config = await requireJudgeConfig(deps.db, judgeConfigId);
  const endpoint = await judgeEndpointOf(deps.db, config, judgeSettings(deps.env));
  const client = (deps.clientFactory ?? createJudgeClient)(endpoint, deps.retryPolicy);
  const policy = createVlmPolicy({ client, name: `vlm:${config.name}`, keepScreenshots, apiKey: endpoint.apiKey });
  return Object.assign(policy, { model: config.model, configName: config.name });
}

export { RUNNER_PROMPT_VERSION };
