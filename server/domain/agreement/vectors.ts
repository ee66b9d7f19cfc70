/**
 * Reference test vectors for the agreement statistics (the `inter-rater-agreement-test-vectors` format of
 * ../shared/agreement/public_vectors.json) and the results format its checker reads.
 *
 * A results file maps each case name to a number, to null (undefined statistic), to {"error": message} (input
 * rejected) or, for Cohen cases, to {"value", "std_kappa", "ci_low", "ci_high", "std_kappa0", "z", "p_two_sided"}.
 */
import { cohenKappa, type KappaWeighting } from "./cohen";
import { fleissKappa, fleissKappaFromCounts } from "./fleiss";
import { krippendorffAlphaNominal } from "./krippendorff";
import { AgreementInputError, type Label } from "./labels";
import { allAgreeShare, meanPairwiseAgreement, percentAgreementTwoRaters } from "./percent";

export interface VectorCase {
  name: string;
  kind: string;
  input: Record<string, unknown>;
  missing_policy?: string;
}

export interface CohenVectorResult {
  value: number | null;
  std_kappa: number | null;
  ci_low: number | null;
  ci_high: number | null;
  std_kappa0: number | null;
  z: number | null;
  p_two_sided: number | null;
  reason?: string;
}

export type VectorResult = number | null | { error: string } | { value: null; reason: string } | CohenVectorResult;

/** Missing-label policies the cases may name; both are what the implementation does anyway. */
const MISSING_POLICIES = new Set(["drop_incomplete_pairs"]);

function labelArray(value: unknown, field: string): Label[] {
  if (!Array.isArray(value)) throw new AgreementInputError(`input.${field} must be an array of labels`);
  value.forEach((v, i) => {
    if (v !== null && typeof v !== "string") throw new AgreementInputError(`input.${field}[${i}] must be a string or null, got ${JSON.stringify(v)}`);
  });
  return value as Label[];
}

function labelMatrix(value: unknown, field: string): Label[][] {
  if (!Array.isArray(value)) throw new AgreementInputError(`input.${field} must be an array of label arrays`);
  return value.map((row, i) => labelArray(row, `${field}[${i}]`));
}

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw new AgreementInputError(`input.${field} must be an array of strings`);
  return value as string[];
}

function weightingOf(value: unknown): KappaWeighting {
  if (value === undefined || value === null || value === "none" || value === "unweighted") return "none";
  if (value === "linear" || value === "quadratic") return value;
  throw new AgreementInputError(`input.weights must be "linear" or "quadratic", got ${JSON.stringify(value)}`);
}

/** A plain statistic: the number, or null-with-reason when undefined. */
function scalar(value: number | null, reason: string | null): VectorResult {
  return value === null ? { value: null, reason: reason ?? "undefined" } : value;
}

/** Computes one case. Invalid input becomes {"error": …}; anything else unexpected is rethrown. */
export function computeVectorCase(c: VectorCase): VectorResult {
  try {
    if (c.missing_policy !== undefined && !MISSING_POLICIES.has(c.missing_policy)) {
      throw new AgreementInputError(`unsupported missing_policy ${JSON.stringify(c.missing_policy)}`);
    }
    const input = c.input ?? {};
    switch (c.kind) {
      case "cohen":
      case "cohen_weighted": {
        if (c.kind === "cohen_weighted" && input.weights === undefined)
          throw new AgreementInputError('input.weights is required for cohen_weighted ("linear" or "quadratic")');
        const weighting = weightingOf(input.weights);
        const r = cohenKappa(labelArray(input.a, "a"), labelArray(input.b, "b"), { weighting, categories: stringList(input.categories, "categories") });
        const out: CohenVectorResult = {
          value: r.kappa,
          std_kappa: r.stdKappa,
          ci_low: r.waldLow,
          ci_high: r.waldHigh,
          std_kappa0: r.stdKappa0,
          z: r.z,
          p_two_sided: r.pTwoSided,
        };
        if (r.reason) out.reason = r.reason;
        return out;
      }
      case "fleiss": {
        const categories = stringList(input.categories, "categories");
        const r =
          input.ratings !== undefined
            ? fleissKappa(labelMatrix(input.ratings, "ratings"), categories)
            : fleissKappaFromCounts(input.counts as number[][], categories);
        return scalar(r.kappa, r.reason);
      }
      case "krippendorff_nominal": {
        const r = krippendorffAlphaNominal(labelMatrix(input.reliability_data, "reliability_data"));
        return scalar(r.alpha, r.reason);
      }
      case "percent_agreement": {
        const definition = input.definition;
        const r =
          definition === "two_rater"
            ? percentAgreementTwoRaters(labelArray(input.a, "a"), labelArray(input.b, "b"))
            : definition === "mean_pairwise"
              ? meanPairwiseAgreement(labelMatrix(input.ratings, "ratings"))
              : definition === "all_agree"
                ? allAgreeShare(labelMatrix(input.ratings, "ratings"))
                : null;
        if (!r) throw new AgreementInputError(`input.definition must be two_rater, mean_pairwise or all_agree, got ${JSON.stringify(definition)}`);
        return scalar(r.value, r.reason);
      }
      default:
        throw new AgreementInputError(`unknown kind ${JSON.stringify(c.kind)}`);
    }
  } catch (e) {
    if (e instanceof AgreementInputError) return { error: e.message };
    throw e;
  }
}

/** Validates the top level of a vectors file and returns its cases. */
export function vectorCases(file: unknown, fileName: string): VectorCase[] {
  const cases = Array.isArray(file) ? file : (file as { cases?: unknown } | null)?.cases;
  if (!Array.isArray(cases)) throw new Error(`${fileName}: expected an object with a "cases" array (or an array of cases)`);
  const seen = new Set<string>();
  cases.forEach((c, i) => {
    const name = (c as VectorCase | null)?.name;
    if (typeof name !== "string" || typeof (c as VectorCase).kind !== "string") throw new Error(`${fileName}: cases[${i}] needs a string "name" and "kind"`);
    if (seen.has(name)) throw new Error(`${fileName}: case name ${JSON.stringify(name)} appears twice`);
    seen.add(name);
  });
  return cases as VectorCase[];
}
