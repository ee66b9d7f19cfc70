/**
 * Rule-based verdicts on recorded trajectories: VisualWebArena's evaluators run against each task's verbatim
 * `evaluator_config`, with fuzzy_match graded through a judge configuration when one is given.
 *
 * Stored as kind "rule" under one evaluator identity ("rule:vwa") and the rule implementation version. Types that
 * need the live page are recorded as not_evaluable with the reason. A fuzzy check whose judge call fails stores
 * nothing for that trajectory (it is reported and retried on the next run), never a guess.
 */
import type { Db } from "../../../db/database";
import { findVerdict, upsertVerdict } from "../../../db/repositories/evaluation/verdicts";
import { getTrajectoryDetail } from "../../../db/repositories/trajectories";
import { looksLikeVwaEvalConfig, VwaConfigError } from "../../domain/evaluation/vwa/config";
import { buildVwaEvaluator, VWA_RULES_VERSION, type VwaEvaluation } from "../../domain/evaluation/vwa/evaluate";
import type { EvalTypeResult } from "../../domain/evaluation/vwa/results";
import type { JudgeClient, JudgeEndpoint, RetryPolicy } from "./judge-client";
import type { Env } from "./judge-configs";
import { judgeFuzzyMatcher, type JudgeBackedMatcher } from "./fuzzy-matcher";

export const VWA_RULES_EVALUATOR_KEY = "rule:vwa";
export const VWA_RULES_EVALUATOR_NAME = "VisualWebArena rules";

export interface RuleDeps {
  db: Db;
  env: Env;
  retryPolicy?: RetryPolicy;
  clientFactory?: (e: JudgeEndpoint, p?: RetryPolicy) => JudgeClient;
}

export interface RuleRunRequest {
  trajectoryIds: number[];
  force?: boolean;
  /** Judge configuration (id or name) that grades fuzzy_match checks; without one they are not evaluable. */
  fuzzyConfig?: number | string | null;
  /** Base URL per site placeholder, e.g. { REDDIT: "http://127.0.0.1:9999" }. */
  siteUrls?: Record<string, string>;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface RuleRunReport {
  considered: number;
  evaluated: number;
  skippedExisting: number;
  /** Trajectories whose task has no VisualWebArena evaluator config. */
  noRuleConfig: number;
  byVerdict: Record<"success" | "failure" | "not_evaluable", number>;
  errors: { trajectoryId: number; error: string }[];
}

/** One short line per eval type: what passed, what failed and why not evaluable. */
export function describeEvaluation(e: VwaEvaluation): string {
  const line = (t: EvalTypeResult) => {
    if (t.status === "pass") return `${t.type}: pass`;
    if (t.status === "not_evaluable") return `${t.type}: not evaluable (${t.reason})`;
    const failed = t.checks
      .filter((c) => c.passed === false)
      .map(
        (c) =>
          `${c.check}${c.reference !== undefined ? ` ${JSON.stringify(c.reference)}` : ""}${c.observed !== undefined ? ` vs ${JSON.stringify(c.observed)}` : ""}`,
      )
      .join("; ");
    return `${t.type}: fail (${failed})`;
  };
  return e.types.map(line).join("\n");
}

function finalUrlOf(steps: { url: string | null }[]): string | null {
  for (let i = steps.length - 1; i >= 0; i--) {
    const u = steps[i]!.url;
    if (u && u.trim()) return u;
  }
  return null;
}

export async function evaluateRuleVerdicts(deps: RuleDeps, req: RuleRunRequest): Promise<RuleRunReport> {
  const { db } = deps;
  const report: RuleRunReport = {
    considered: req.trajectoryIds.length,
    evaluated: 0,
    skippedExisting: 0,
    noRuleConfig: 0,
    byVerdict: { success: 0, failure: 0, not_evaluable: 0 },
    errors: [],
  };
  let matcher: JudgeBackedMatcher | undefined;
  if (req.fuzzyConfig != null) {
    matcher = await judgeFuzzyMatcher(db, req.fuzzyConfig, deps.env, {
      retryPolicy: deps.retryPolicy,
      clientFactory: deps.clientFactory,
      signal: req.signal,
    });
  }
  let done = 0;
  for (const trajectoryId of req.trajectoryIds) {
    if (req.signal?.aborted) break;
    req.onProgress?.(done++, req.trajectoryIds.length);
    const detail = await getTrajectoryDetail(db, trajectoryId);
    if (!detail || !looksLikeVwaEvalConfig(detail.task.evaluatorConfig)) {
      report.noRuleConfig++;
      continue;
    }
    const identity = { trajectoryId, evaluatorKey: VWA_RULES_EVALUATOR_KEY, k: "", promptVersion: VWA_RULES_VERSION };
    if (!req.force && (await findVerdict(db, identity))) {
      report.skippedExisting++;
      continue;
    }
    const base = { ...identity, kind: "rule" as const, origin: "verdict" as const, evaluatorName: VWA_RULES_EVALUATOR_NAME };
    let evaluation: VwaEvaluation;
    try {
      const evaluator = buildVwaEvaluator(detail.task.evaluatorConfig, `task ${detail.task.externalId}`);
      matcher?.reset();
      evaluation = await evaluator.evaluate(
        { intent: detail.task.intent, finalAnswer: detail.trajectory.finalAnswer, finalUrl: finalUrlOf(detail.steps) },
        { fuzzy: matcher?.match, siteUrls: req.siteUrls },
      );
    } catch (e) {
      if (e instanceof VwaConfigError) {
        await upsertVerdict(db, { ...base, verdict: "not_evaluable", score: null, rationale: e.message, details: { reason: e.message } });
        report.evaluated++;
        report.byVerdict.not_evaluable++;
        continue;
      }
      report.errors.push({ trajectoryId, error: (e as Error).message });
      continue;
    }
    const usage = matcher?.usage();
    await upsertVerdict(db, {
      ...base,
      verdict: evaluation.verdict,
      score: evaluation.score,
      rationale: describeEvaluation(evaluation),
      details: {
        types: evaluation.types,
        ...(evaluation.reason ? { reason: evaluation.reason } : {}),
        ...(usage && usage.calls > 0 ? { fuzzyJudge: matcher!.configName, fuzzyCalls: usage.calls } : {}),
      },
      ...(usage && usage.calls > 0
        ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, latencyMs: usage.latencyMs, costUsd: usage.costUsd }
        : {}),
    });
    report.evaluated++;
    report.byVerdict[evaluation.verdict]++;
  }
  req.onProgress?.(done, req.trajectoryIds.length);
  return report;
}
