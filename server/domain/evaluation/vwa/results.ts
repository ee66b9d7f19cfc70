/**
 * Result shapes of the VisualWebArena rule evaluators.
 *
 * A check is one comparison (one must_include item, one reference URL rule, one image query). Its `passed` is
 * true / false, or null when it could not be decided on this trajectory (`note` says why). An eval type's status
 * follows VWA's multiplicative scoring: any failed check fails it (0 × anything = 0), otherwise any undecided
 * check makes it not evaluable, otherwise it passes.
 */
import type { VwaEvalType } from "./config";

export interface CheckDetail {
  /** exact_match, must_include, must_exclude, one_of, required_values, fuzzy_match, unachievable, url, program_html, vqa, image_match */
  check: string;
  reference?: string;
  /** What the reference was compared with (the cleaned answer, the final URL, the SSIM score…). */
  observed?: string | number | null;
  passed: boolean | null;
  note?: string;
}

export type CheckStatus = "pass" | "fail" | "not_evaluable";

export interface EvalTypeResult {
  type: VwaEvalType;
  status: CheckStatus;
  /** 1 or 0, as VWA scores it; null when not evaluable. */
  score: number | null;
  checks: CheckDetail[];
  /** Why the type could not be evaluated, when status is not_evaluable. */
  reason?: string;
}

export function summarise(type: VwaEvalType, checks: CheckDetail[], fallbackReason?: string): EvalTypeResult {
  if (checks.some((c) => c.passed === false)) return { type, status: "fail", score: 0, checks };
  const undecided = checks.filter((c) => c.passed === null);
  if (undecided.length > 0 || checks.length === 0) {
    const reason =
      undecided
        .map((c) => c.note)
        .filter(Boolean)
        .join("; ") ||
      fallbackReason ||
      "nothing to check";
    return { type, status: "not_evaluable", score: null, checks, reason };
  }
  return { type, status: "pass", score: 1, checks };
}
