/**
 * Krippendorff's α for nominal data, with missing values (Krippendorff 2011, "Computing Krippendorff's
 * Alpha-Reliability").
 *
 * Units u are the rated items, m_u the number of values (non-missing labels) unit u received. Only pairable units
 * (m_u ≥ 2) enter. With n_uc the number of values c in unit u:
 *   coincidences  o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1)
 *   n_c = Σ_k o_ck = Σ_u n_uc,   n = Σ_c n_c = Σ_u m_u              (pairable values)
 *   α = 1 − D_o / D_e = 1 − (n − 1) (n − Σ_c o_cc) / (n² − Σ_c n_c²)
 * The disagreeing mass is accumulated per unit as n − Σ_c o_cc = Σ_u (m_u² − Σ_c n_uc²) / (m_u − 1), with the
 * integer numerators summed separately for each m_u and divided once, so perfect agreement gives exactly α = 1.
 *
 * Undefined (null, with the reason): no pairable unit (n = 0), or a single value among the pairable values
 * (D_e = 0, 0/0). Note that R irr::kripp.alpha returns 1 for the latter; α is undefined there, not perfect.
 */
import { AgreementInputError, LabelCodec, type Label } from "./labels";

export interface KrippendorffResult {
  alpha: number | null;
  reason: string | null;
  /** Units with at least two values. */
  pairableUnits: number;
  /** n: number of values in pairable units. */
  pairableValues: number;
  /** Distinct values seen (in any unit). */
  categories: string[];
  /** D_o = (n − Σ o_cc) / n. */
  observedDisagreement: number | null;
  /** D_e = (n² − Σ n_c²) / (n (n − 1)). */
  expectedDisagreement: number | null;
}

/**
 * Streaming accumulator: feed the values of one unit at a time (as codes), then `result`.
 * Used by both input shapes below and by callers that already hold encoded data.
 */
export class KrippendorffAccumulator {
  private unitCounts = new Int32Array(16);
  /** Codes seen in the current unit (touchedCount of them): typed and reused, as this runs once per unit. */
  private touched = new Int32Array(16);
  private touchedCount = 0;
  private valueTotals = new Float64Array(16);
  /** Σ_u (m_u² − Σ_c n_uc²) grouped by m_u (index m_u). */
  private disagreementByM = new Float64Array(8);
  private pairableUnits = 0;
  private pairableValues = 0;

  private ensure(code: number): void {
    if (code < this.unitCounts.length) return;
    let size = this.unitCounts.length;
    while (size <= code) size *= 2;
    const counts = new Int32Array(size);
    counts.set(this.unitCounts);
    this.unitCounts = counts;
    const totals = new Float64Array(size);
    totals.set(this.valueTotals);
    this.valueTotals = totals;
    const touched = new Int32Array(size);
    touched.set(this.touched);
    this.touched = touched;
  }

  /** Adds one value (a non-negative code) to the current unit. */
  add(code: number): void {
    this.ensure(code);
    if (this.unitCounts[code]!++ === 0) this.touched[this.touchedCount++] = code;
  }

  /** Closes the current unit. */
  endUnit(): void {
    const touched = this.touched;
    const counts = this.unitCounts;
    const t = this.touchedCount;
    let m = 0;
    let sumSq = 0;
    for (let i = 0; i < t; i++) {
      const v = counts[touched[i]!]!;
      m += v;
      sumSq += v * v;
    }
    if (m >= 2) {
      this.pairableUnits++;
      this.pairableValues += m;
      for (let i = 0; i < t; i++) this.valueTotals[touched[i]!]! += counts[touched[i]!]!;
      this.addDisagreement(m, m * m - sumSq);
    }
    for (let i = 0; i < t; i++) counts[touched[i]!] = 0;
    this.touchedCount = 0;
  }

  /**
   * Adds `weight` units whose values have the category counts `counts` (k entries): the same as adding each value
   * and closing the unit, `weight` times.
   */
  addUnits(counts: ArrayLike<number>, k: number, weight: number): void {
    if (k > 0) this.ensure(k - 1);
    let m = 0;
    let sumSq = 0;
    for (let c = 0; c < k; c++) {
      const v = counts[c]!;
      m += v;
      sumSq += v * v;
    }
    if (m < 2 || weight === 0) return;
    this.pairableUnits += weight;
    this.pairableValues += weight * m;
    for (let c = 0; c < k; c++) if (counts[c]) this.valueTotals[c]! += weight * counts[c]!;
    this.addDisagreement(m, weight * (m * m - sumSq));
  }

  /** Adds disagreeing mass to the units with `m` values, growing the table when `m` is new. */
  private addDisagreement(m: number, mass: number): void {
    if (mass === 0) return;
    if (m >= this.disagreementByM.length) {
      const next = new Float64Array(Math.max(m + 1, this.disagreementByM.length * 2));
      next.set(this.disagreementByM);
      this.disagreementByM = next;
    }
    this.disagreementByM[m]! += mass;
  }

  result(categories: string[]): KrippendorffResult {
    const n = this.pairableValues;
    const base = { pairableUnits: this.pairableUnits, pairableValues: n, categories };
    const undefinedAlpha = (reason: string) => ({ ...base, alpha: null, reason, observedDisagreement: null, expectedDisagreement: null });
    if (n === 0) return undefinedAlpha("no unit has two or more values, so nothing is pairable (n = 0)");
    let sumNc2 = 0;
    for (const t of this.valueTotals) sumNc2 += t * t;
    const expectedMass = n * n - sumNc2; // n (n − 1) D_e
    if (expectedMass === 0) return undefinedAlpha("only one value occurs among the pairable values (D_e = 0): α is 0/0");
    let observedMass = 0; // n − Σ o_cc = n D_o
    for (let m = 2; m < this.disagreementByM.length; m++) if (this.disagreementByM[m]) observedMass += this.disagreementByM[m]! / (m - 1);
    return {
      ...base,
      alpha: 1 - ((n - 1) * observedMass) / expectedMass,
      reason: null,
      observedDisagreement: observedMass / n,
      expectedDisagreement: expectedMass / (n * (n - 1)),
    };
  }
}

/**
 * α from a reliability matrix: coders × units (rows = coders, all rows the same length), null = missing.
 */
export function krippendorffAlphaNominal(reliabilityData: readonly (readonly Label[])[]): KrippendorffResult {
  if (!Array.isArray(reliabilityData)) throw new AgreementInputError("reliability data must be an array of coder rows");
  const coders = reliabilityData.length;
  const units = coders === 0 ? 0 : (reliabilityData[0]?.length ?? 0);
  reliabilityData.forEach((row, c) => {
    if (!Array.isArray(row)) throw new AgreementInputError(`reliability data row ${c} must be an array of labels`);
    if (row.length !== units)
      throw new AgreementInputError(`reliability data rows must all have one entry per unit: row 0 has ${units}, row ${c} has ${row.length}`);
  });
  const codec = new LabelCodec();
  const acc = new KrippendorffAccumulator();
  for (let u = 0; u < units; u++) {
    for (let c = 0; c < coders; c++) {
      const v = reliabilityData[c]![u];
      if (v === null || v === undefined) continue;
      if (typeof v !== "string") throw new AgreementInputError(`reliability data [${c}][${u}] must be a string or null, got ${JSON.stringify(v)}`);
      acc.add(codec.code(v));
    }
    acc.endUnit();
  }
  return acc.result(codec.labels);
}

/** α from units: one array of the labels each unit received (null entries are skipped). */
export function krippendorffAlphaNominalUnits(units: readonly (readonly Label[])[]): KrippendorffResult {
  if (!Array.isArray(units)) throw new AgreementInputError("units must be an array with one array of labels per unit");
  const codec = new LabelCodec();
  const acc = new KrippendorffAccumulator();
  units.forEach((unit, u) => {
    if (!Array.isArray(unit)) throw new AgreementInputError(`units[${u}] must be an array of labels`);
    unit.forEach((v, r) => {
      if (v === null || v === undefined) return;
      if (typeof v !== "string") throw new AgreementInputError(`units[${u}][${r}] must be a string or null, got ${JSON.stringify(v)}`);
      acc.add(codec.code(v));
    });
    acc.endUnit();
  });
  return acc.result(codec.labels);
}
