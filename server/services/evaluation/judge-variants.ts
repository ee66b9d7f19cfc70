/**
 * Resolves a judge variant (server/domain/evaluation/prompt-variants.ts) against a configuration: the options it
 * asks with, the prompt version its verdicts record, and the stored prompt version's rubric and examples. A
 * version belongs to one configuration's alignment study and is refused for any other configuration; a
 * perturbation that would change nothing for the configuration is refused rather than paid for.
 */
import type { Db } from "../../../db/database";
import { getPromptVersion, judgeVerdictsUnder } from "../../../db/repositories/evaluation/improvement";
import type { PublicJudgeConfig } from "../../../db/repositories/evaluation/verdicts";
import { effectivePromptVersion } from "../../domain/evaluation/judge-protocol";
import { isStagedVersion } from "../../domain/evaluation/staged-protocols";
import {
  parseVariant,
  perturbationInapplicable,
  variantOptions,
  variantSuffix,
  type JudgeVariant,
  type PromptVersionContent,
} from "../../domain/evaluation/prompt-variants";
import { DEFAULT_JUDGE_OPTIONS, type JudgeOptions } from "../../domain/evaluation/verdicts";
import { NotFoundError, ValidationError } from "../../errors";
import { judgeEvaluatorKey } from "./judge-configs";

export interface ResolvedVariant {
  text: string;
  variant: JudgeVariant;
  /** The configuration's options, before the variant changes them (buildVariantPrompt applies it). */
  configOptions: JudgeOptions;
  /** The options the judge is asked with under the variant (answer or history left out), as its verdicts record. */
  askedOptions: JudgeOptions;
  /** The prompt version the variant's verdicts record ("verdict-judge-v1+pv12"). */
  promptVersion: string;
  /** The stored version's rubric and examples; null for the configuration's own prompt. */
  version: (PromptVersionContent & { id: number; number: number }) | null;
}

export async function resolveJudgeVariant(db: Db, config: PublicJudgeConfig, text: string): Promise<ResolvedVariant> {
  const variant: JudgeVariant = parseVariant(text);
  const configOptions: JudgeOptions = { ...DEFAULT_JUDGE_OPTIONS, ...config.options };
  if (variant.perturbation) {
    const why = perturbationInapplicable(variant.perturbation, configOptions, isStagedVersion(config.promptVersion));
    if (why) throw new ValidationError(`variant ${JSON.stringify(text)} changes nothing for judge configuration ${config.name}: ${why}`);
  }
  let version: ResolvedVariant["version"] = null;
  if (variant.promptVersionId !== undefined) {
    const row = await getPromptVersion(db, variant.promptVersionId);
    if (!row) throw new NotFoundError("prompt version", variant.promptVersionId);
    if (row.judgeConfigId !== config.id)
      throw new ValidationError(`prompt version ${row.id} belongs to another judge configuration's alignment study, not to ${config.name}`);
    version = { id: row.id, number: row.number, rubric: row.rubric, examples: row.examples };
  }
  return {
    text,
    variant,
    configOptions,
    askedOptions: variantOptions(configOptions, variant),
    promptVersion: effectivePromptVersion(config.promptVersion, variantOptions(configOptions, variant)) + variantSuffix(variant),
    version,
  };
}

/** Resolves each variant once per run (a batch asks thousands of items under a handful of variants). */
export class VariantCache {
  private readonly entries = new Map<string, Promise<ResolvedVariant>>();
  get(db: Db, config: PublicJudgeConfig, text: string): Promise<ResolvedVariant> {
    const key = `${config.id}\u0000${text}`;
    let hit = this.entries.get(key);
    if (!hit) {
      hit = resolveJudgeVariant(db, config, text);
      this.entries.set(key, hit);
      hit.catch(() => this.entries.delete(key));
    }
    return hit;
  }
}

/**
 * The configuration's stored verdicts at `k` under each of `variants` for these trajectories, looked up by the
 * variant's prompt version and the trajectory: null where that pair was not judged (yet).
 */
export async function verdictsUnderVariants(
  db: Db,
  config: PublicJudgeConfig,
  k: string,
  variants: ResolvedVariant[],
  trajectoryIds: number[],
): Promise<(promptVersion: string, trajectoryId: number) => string | null> {
  const versions = variants.map((r) => r.promptVersion);
  const rows = await judgeVerdictsUnder(db, judgeEvaluatorKey(config.id), k, versions, trajectoryIds);
  const verdictOf = new Map(rows.map((r) => [`${r.promptVersion}\u0000${r.trajectoryId}`, r.verdict]));
  return (promptVersion, trajectoryId) => verdictOf.get(`${promptVersion}\u0000${trajectoryId}`) ?? null;
}
