/**
 * Labels as the agreement statistics see them, and their encoding to small integers.
 *
 * A label is a string compared by exact equality: no trimming, no case folding, no Unicode normalisation, and the
 * empty string is a label like any other. `null` is a missing label. Labels are kept in a `Map`, never in a plain
 * object, so that names such as "__proto__" or "constructor" are ordinary labels.
 *
 * The statistics encode labels to dense integer codes once (0, 1, 2, … in order of first appearance, or in the order
 * of a given category list) and then count in typed arrays; that is what makes a million label pairs cheap.
 */
import { ValidationError } from "../../errors";

export type Label = string | null;

/** Code used for a missing (null) label in encoded arrays. */
export const MISSING = -1;

/** Invalid input to an agreement statistic (as opposed to an undefined value, which is reported as null). */
export class AgreementInputError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "AgreementInputError";
  }
}

export class LabelCodec {
  private readonly index = new Map<string, number>();
  readonly labels: string[] = [];
  /** When frozen, `encode` rejects labels that are not already known (a fixed category list). */
  readonly frozen: boolean;

  constructor(categories?: readonly string[], options: { frozen?: boolean; what?: string } = {}) {
    for (const c of categories ?? []) {
      if (typeof c !== "string") throw new AgreementInputError(`${options.what ?? "categories"}: every category must be a string, got ${JSON.stringify(c)}`);
      if (this.index.has(c)) throw new AgreementInputError(`${options.what ?? "categories"}: category ${JSON.stringify(c)} is listed twice`);
      this.index.set(c, this.labels.length);
      this.labels.push(c);
    }
    this.frozen = options.frozen ?? false;
  }

  get size(): number {
    return this.labels.length;
  }

  /** The label's code; unknown labels get the next code unless the codec is frozen. */
  code(label: string): number {
    const known = this.index.get(label);
    if (known !== undefined) return known;
    if (this.frozen) throw new AgreementInputError(`label ${JSON.stringify(label)} is not one of the categories ${JSON.stringify(this.labels)}`);
    const next = this.labels.length;
    this.index.set(label, next);
    this.labels.push(label);
    return next;
  }

  lookup(label: string): number | undefined {
    return this.index.get(label);
  }
}

/**
 * Encodes a label vector to codes (MISSING for null). `what` names the vector in error messages.
 * Runs of repeated labels skip the map lookup, which is the common case for sorted or low-entropy data.
 */
export function encodeLabels(values: readonly Label[], codec: LabelCodec, what: string): Int32Array {
  if (!Array.isArray(values)) throw new AgreementInputError(`${what} must be an array of labels (strings or null)`);
  const out = new Int32Array(values.length);
  let prev: string | undefined;
  let prevCode = MISSING;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      out[i] = MISSING;
      continue;
    }
    if (v === prev) {
      out[i] = prevCode;
      continue;
    }
    if (typeof v !== "string") throw new AgreementInputError(`${what}[${i}] must be a string or null, got ${JSON.stringify(v)}`);
    try {
      prevCode = codec.code(v);
    } catch (e) {
      if (e instanceof AgreementInputError) throw new AgreementInputError(`${what}[${i}]: ${e.message}`);
      throw e;
    }
    prev = v;
    out[i] = prevCode;
  }
  return out;
}
