/**
 * A FuzzyMatcher (VisualWebArena's LLM-graded string checks) backed by a judge configuration's endpoint.
 * It keeps totals of the calls it made so the rule verdict can record tokens, latency and cost.
 */
import type { Db } from "../../../db/database";
import { judgeSettings } from "../../config";
import { costUsd } from "../../domain/evaluation/judge-protocol";
import { buildFuzzyMatchPrompt, parseFuzzyMatchReply, type FuzzyMatcher } from "../../domain/evaluation/vwa/fuzzy-prompt";
import { createJudgeClient, type JudgeClient, type JudgeEndpoint, type RetryPolicy } from "./judge-client";
import { endpointErrorText, redactSecret, requireJudgeConfig, judgeEndpointOf, type Env } from "./judge-configs";

export interface FuzzyUsage {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  costUsd: number | null;
}

export interface JudgeBackedMatcher {
  match: FuzzyMatcher;
  configName: string;
  /** Totals since the last reset. */
  usage(): FuzzyUsage;
  reset(): void;
}

export async function judgeFuzzyMatcher(
  db: Db,
  configRef: number | string,
  env: Env,
  opts: { retryPolicy?: RetryPolicy; clientFactory?: (e: JudgeEndpoint, p?: RetryPolicy) => JudgeClient; signal?: AbortSignal } = {},
): Promise<JudgeBackedMatcher> {
  const config = await requireJudgeConfig(db, configRef);
  const endpoint = await judgeEndpointOf(db, config, judgeSettings(env));
  const apiKey = endpoint.apiKey;
  // A yes/no grade needs few tokens whatever the configuration allows.
  const client = (opts.clientFactory ?? createJudgeClient)({ ...endpoint, maxOutputTokens: Math.min(endpoint.maxOutputTokens, 512) }, opts.retryPolicy);
  let usage: FuzzyUsage = { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0, costUsd: null };
  return {
    configName: config.name,
    usage: () => ({ ...usage }),
    reset: () => {
      usage = { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0, costUsd: null };
    },
    match: async (request) => {
      const prompt = buildFuzzyMatchPrompt(request);
      let r;
      try {
        r = await client.complete(
          [
            { role: "system", content: prompt.system },
            { role: "user", content: prompt.user },
          ],
          { signal: opts.signal },
        );
      } catch (e) {
        if (e instanceof Error) e.message = endpointErrorText(e.message, apiKey);
        throw e;
      }
      usage.calls++;
      usage.inputTokens += r.inputTokens ?? 0;
      usage.outputTokens += r.outputTokens ?? 0;
      usage.latencyMs += r.latencyMs;
      const cost = costUsd(
        { input: r.inputTokens, output: r.outputTokens },
        { inputPerMTok: config.priceInputPerMTok, outputPerMTok: config.priceOutputPerMTok },
      );
      if (cost !== null) usage.costUsd = (usage.costUsd ?? 0) + cost;
      const raw = redactSecret(r.content ?? r.refusal ?? "", apiKey);
      return { match: parseFuzzyMatchReply(raw), raw };
    },
  };
}
