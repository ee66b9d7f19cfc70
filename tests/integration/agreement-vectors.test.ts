/**
 * The agreement CLI commands end to end: the 79 public reference vectors (tests/fixtures/agreement) through
 * `agreement-vectors`, compared here at the checker's tolerance and, with ../shared and python3, by the shared
 * checker too; and `agreement csv` on a small ratings file whose answer was worked out by hand.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agreementCommand, agreementVectorsCommand } from "@/server/cli/commands/agreement";
import type { CliCommand } from "@/server/cli/types";
import { runCliInProcess } from "../helpers/cli";
import { Z_95, fleissKappa, fleissKappaFromCounts } from "@/server/domain/agreement";
import { sharedPath } from "../helpers/context";
import { python3SkipReason, titled } from "../helpers/requirements";

/** `agreement …` / `agreement-vectors …` as the CLI runs them, in this process. */
const run = (command: CliCommand, argv: string[]) => runCliInProcess([command.name, ...argv], process.env);

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-agreement-"));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The public reference vectors, kept under tests/fixtures (see its README), decompressed once per run. */
const fixtureVectors = path.join(__dirname, "..", "fixtures", "agreement", "public_vectors.json.gz");
let vectorsPath: string;
beforeAll(() => {
  vectorsPath = path.join(tmp, "public_vectors.json");
  fs.writeFileSync(vectorsPath, zlib.gunzipSync(fs.readFileSync(fixtureVectors)));
});

interface ReferenceCase {
  name: string;
  kind: string;
  expected: number | null;
  expected_ci?: Record<(typeof CI_FIELDS)[number], number | null>;
}
const CI_FIELDS = ["std_kappa", "ci_low", "ci_high", "std_kappa0", "z", "p_two_sided"] as const;
const REL_TOL = 1e-9;
const ABS_TOL = 1e-12;

/** Undefined as the vectors' README allows it: null, NaN, an error object or {value: null}. */
function isUndefined(v: unknown): boolean {
  if (v === null || (typeof v === "number" && Number.isNaN(v))) return true;
  if (typeof v === "object" && v !== null) return "error" in v || ("value" in v && isUndefined((v as { value: unknown }).value));
  return false;
}

/** Why `actual` is not `expected` within 1e-9 relative (1e-12 absolute floor), or null when it is. */
function mismatch(actual: unknown, expected: number | null): string | null {
  if (expected === null) return isUndefined(actual) ? null : `expected undefined, got ${JSON.stringify(actual)}`;
  const value = typeof actual === "object" && actual !== null && "value" in actual ? (actual as { value: unknown }).value : actual;
  if (typeof value !== "number" || !Number.isFinite(value)) return `expected ${expected}, got ${JSON.stringify(actual)}`;
  const diff = Math.abs(value - expected);
  return diff <= Math.max(REL_TOL * Math.abs(expected), ABS_TOL) ? null : `expected ${expected}, got ${value} (abs diff ${diff.toExponential(2)})`;
}

/** Every case's result against its expected value and, for Cohen's κ, every interval field. */
function compareWithReference(cases: ReferenceCase[], results: Record<string, unknown>): string[] {
  const failures: string[] = [];
  for (const c of cases) {
    if (!(c.name in results)) {
      failures.push(`${c.name}: missing from the results`);
      continue;
    }
    const actual = results[c.name];
    const problems = [mismatch(actual, c.expected)];
    if (c.expected_ci && c.expected !== null) {
      const fields = typeof actual === "object" && actual !== null ? (actual as Record<string, unknown>) : {};
      for (const k of CI_FIELDS) problems.push(k in fields ? mismatch(fields[k], c.expected_ci[k] ?? null) : `${k} missing`);
    }
    const found = problems.filter((p): p is string => p !== null);
    if (found.length > 0) failures.push(`${c.name} [${c.kind}]: ${found.join("; ")}`);
  }
  return failures;
}

describe("agreement-vectors on the 79 public reference cases", () => {
  it("computes every case within 1e-9 of the reference values, intervals included", async () => {
    const out = path.join(tmp, "results.json");
    const r = await run(agreementVectorsCommand, [vectorsPath, "--out", out]);
    expect(r.stderr).toMatch(/79 cases/);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const file = JSON.parse(fs.readFileSync(vectorsPath, "utf8")) as { case_count: number; cases: ReferenceCase[] };
    expect(file.case_count).toBe(79);
    expect(file.cases).toHaveLength(79);
    // Every kind the README names is among them, with intervals on the Cohen cases.
    expect(new Set(file.cases.map((c) => c.kind))).toEqual(new Set(["cohen", "cohen_weighted", "fleiss", "krippendorff_nominal", "percent_agreement"]));
    expect(file.cases.filter((c) => c.expected_ci && c.expected !== null).length).toBeGreaterThan(20);
    expect(file.cases.filter((c) => c.expected === null).length).toBeGreaterThan(5);

    const results = JSON.parse(fs.readFileSync(out, "utf8")) as Record<string, unknown>;
    expect(compareWithReference(file.cases, results)).toEqual([]);
  });

  it("notices a result off by more than the tolerance (the comparison can fail)", () => {
    const file = JSON.parse(fs.readFileSync(vectorsPath, "utf8")) as { cases: ReferenceCase[] };
    const published = file.cases.find((c) => c.name === "cohen/published/wikipedia_grant_proposals_50")!;
    const ci = published.expected_ci!;
    const exact = { value: 0.4, ...ci };
    expect(compareWithReference([published], { [published.name]: exact })).toEqual([]);
    expect(compareWithReference([published], { [published.name]: { ...exact, value: 0.4 * (1 + 3e-9) } })).toHaveLength(1);
    expect(compareWithReference([published], { [published.name]: { ...exact, ci_low: null } })).toHaveLength(1);
    expect(compareWithReference([published], { [published.name]: null })).toHaveLength(1);
    expect(compareWithReference([published], {})).toEqual([`${published.name}: missing from the results`]);
  });

  it("prints one JSON summary object with --json", async () => {
    const out = path.join(tmp, "nested", "results.json");
    const r = await run(agreementVectorsCommand, [vectorsPath, "--out", out, "--json"]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.cases).toBe(79);
    expect(summary.values + summary.undefined + summary.errors).toBe(79);
    const results = JSON.parse(fs.readFileSync(out, "utf8"));
    expect(results["cohen/edge/length_mismatch_error"]).toHaveProperty("error");
    expect(results["cohen/edge/all_one_category_undefined"].value).toBeNull();
  });

  it("gets the same Fleiss κ from counts as from raw ratings, and the published SE under κ = 0", () => {
    type FleissCase = {
      kind: string;
      name: string;
      input: { categories: string[]; counts: number[][]; ratings: (string | null)[][] };
      expected_extra?: { se0: number };
    };
    const cases = (JSON.parse(fs.readFileSync(vectorsPath, "utf8")).cases as FleissCase[]).filter((c) => c.kind === "fleiss");
    expect(cases.length).toBeGreaterThan(10);
    expect(cases.filter((c) => c.expected_extra).length).toBeGreaterThan(0);
    for (const c of cases) {
      const fromCounts = fleissKappaFromCounts(c.input.counts, c.input.categories);
      const fromRatings = fleissKappa(c.input.ratings, c.input.categories);
      expect(fromCounts.kappa, c.name).toBe(fromRatings.kappa);
      if (c.expected_extra) expect(Math.abs(fromRatings.se0! - c.expected_extra.se0), c.name).toBeLessThan(1e-12);
    }
  });
});

// The shared checker itself, on the shared copy: the results file is in the format it reads.
const sharedVectors = sharedPath("agreement", "public_vectors.json");
const sharedChecker = sharedPath("agreement", "check_vectors.py");
const noPython = python3SkipReason();
const noShared = sharedVectors && sharedChecker ? null : "../shared/agreement is absent";
describe.skipIf(noShared !== null || noPython !== null)(titled("the shared check_vectors.py", noShared ?? noPython), () => {
  it("passes every case with --require-ci", async () => {
    const out = path.join(tmp, "shared-results.json");
    expect((await run(agreementVectorsCommand, [sharedVectors!, "--out", out])).code).toBe(0);
    const check = spawnSync("python3", [sharedChecker!, sharedVectors!, out, "--require-ci"], { encoding: "utf8" });
    expect(check.stdout).toMatch(/^79 passed, 0 failed$/m);
    expect(check.status).toBe(0);
  });
});

describe("agreement-vectors usage", () => {
  it("requires --out and a readable JSON file", async () => {
    expect((await run(agreementVectorsCommand, ["x.json"])).code).toBe(2);
    const missing = await run(agreementVectorsCommand, [path.join(tmp, "nope.json"), "--out", path.join(tmp, "r.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.json: no such file/);
    const bad = path.join(tmp, "bad.json");
    fs.writeFileSync(bad, "{ not json");
    expect((await run(agreementVectorsCommand, [bad, "--out", path.join(tmp, "r.json")])).stderr).toMatch(/bad\.json: not valid JSON/);
  });
});

describe("agreement csv", () => {
  // 12 items keyed by (site, task); ann and bob label all 12, cy labels 4.
  //   items 1–5: ann S, bob S     item 6: ann S, bob F     item 7: ann F, bob S     items 8–12: ann F, bob F
  //   cy: item 1 S, item 6 S, item 7 F, item 8 F
  // Hand computation:
  //   ann–bob table [[5,1],[1,5]]: P_o = 10/12, P_e = 1/2 → κ = 2/3;
  //     Var = [10/12·(1 − 1·(1/3))² + (1/3)²·(2/12)·1² − (2/3 − (1/2)(1/3))²] / ((1/2)²·12) = (15/108)/3 = 5/108.
  //   Krippendorff: n = 28 pairable values, n_S = n_F = 14 → n² − Σn_c² = 392; items 6 and 7 ({S,F,S}, {F,S,F})
  //     each add (9 − 5)/2 = 2 → α = 1 − 27·4/392 = 71/98.
  //   Mean pairwise agreement: 10 items at 1, items 6 and 7 at 2/6 → (10 + 2/3)/12 = 8/9.
  //   Fleiss: items have 2 or 3 ratings → undefined. Pairs with cy share 4 items (< 10) → not reported.
  const ann = ["S", "S", "S", "S", "S", "S", "F", "F", "F", "F", "F", "F"];
  const bob = ["S", "S", "S", "S", "S", "F", "S", "F", "F", "F", "F", "F"];
  const cy = new Map([
    [0, "S"],
    [5, "S"],
    [6, "F"],
    [7, "F"],
  ]);
  const site = (i: number) => (i < 6 ? '"shop,com"' : "maps");
  const task = (i: number) => `t${(i % 6) + 1}`;

  function writeCsv(name: string, mapLabel: (rater: string, label: string) => string = (_, l) => l): string {
    const lines = ["site,task,annotator,verdict,note"];
    for (let i = 0; i < 12; i++) {
      lines.push(`${site(i)},${task(i)},ann,${mapLabel("ann", ann[i]!)},`);
      if (cy.has(i)) lines.push(`${site(i)},${task(i)},cy,${mapLabel("cy", cy.get(i)!)},"second look, ""unsure""\nabout this"`);
    }
    for (let i = 11; i >= 0; i--) lines.push(`${site(i)},${task(i)},bob,${mapLabel("bob", bob[i]!)},ok`);
    const file = path.join(tmp, name);
    fs.writeFileSync(file, "\uFEFF" + lines.join("\r\n") + "\r\n");
    return file;
  }

  it("reports the hand-computed statistics as one JSON object", async () => {
    const file = writeCsv("ratings.csv");
    const r = await run(agreementCommand, ["csv", file, "--item", "site,task", "--rater", "annotator", "--label", "verdict", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(out).toMatchObject({ items: 12, raters: 3, pairable_items: 12, fleiss_kappa: null });
    expect(out.fleiss_kappa_reason).toMatch(/different numbers of ratings \(2 to 3\)/);
    expect(out.krippendorff_alpha).toBeCloseTo(71 / 98, 14);
    expect(out.percent_agreement).toBeCloseTo(8 / 9, 14);
    expect(out.pairwise).toHaveLength(1);
    const pair = out.pairwise[0];
    expect([pair.rater_a, pair.rater_b, pair.shared_items]).toEqual(["ann", "bob", 12]);
    expect(pair.kappa).toBeCloseTo(2 / 3, 14);
    expect(pair.std_kappa).toBeCloseTo(Math.sqrt(5 / 108), 14);
    // Twelve pairs are too few for the large-sample interval (its lower bound 2/3 − 1.96·√(5/108) would be shown
    // otherwise): the interval is a bootstrap over the pairs, inside [−1, 1] and around κ.
    expect(pair).toMatchObject({ ci_method: "bootstrap", ci_note: "with 12 items (under 30) the large-sample interval is not reliable" });
    expect(pair.ci_low).not.toBeCloseTo(2 / 3 - Z_95 * Math.sqrt(5 / 108), 3);
    expect(pair.ci_low).toBeGreaterThanOrEqual(-1);
    expect(pair.ci_low).toBeLessThan(2 / 3);
    expect(pair.ci_high).toBeGreaterThan(2 / 3);
    expect(pair.ci_high).toBeLessThanOrEqual(1);
    // α gets a bootstrap interval too; Fleiss' κ is undefined here and says why it has none.
    expect(out.krippendorff_alpha_ci_method).toBe("bootstrap");
    expect(out).toMatchObject({ fleiss_kappa_ci_low: null, fleiss_kappa_ci_method: null });
    expect(out.fleiss_kappa_ci_note).toMatch(/^no interval: items have different numbers of ratings/);
    expect(pair.percent_agreement).toBeCloseTo(10 / 12, 14);
  });

  it("compares labels exactly: a trailing space is another label", async () => {
    // bob's labels all get a trailing space: no exact matches with ann, and P_e = 0 → κ = 0 (defined).
    const file = writeCsv("spaced.csv", (rater, l) => (rater === "bob" ? `${l} ` : l));
    const out = JSON.parse((await run(agreementCommand, ["csv", file, "--item", "site,task", "--rater", "annotator", "--label", "verdict", "--json"])).stdout);
    expect(out.pairwise[0].percent_agreement).toBe(0);
    expect(out.pairwise[0].kappa).toBe(0);
  });

  it("prints a human-readable table on stdout without --json", async () => {
    const file = writeCsv("human.csv");
    const r = await run(agreementCommand, ["csv", file, "--item", "site,task", "--rater", "annotator", "--label", "verdict"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/28 ratings of 12 items by 3 raters/);
    expect(r.stdout).toMatch(/Krippendorff's α \(nominal\)\s+0\.724/);
    expect(r.stdout).toMatch(/Mean pairwise percent agreement\s+88\.9%/);
    expect(r.stdout).toMatch(/Fleiss' κ\s+undefined\s+\(items have different numbers/);
    expect(r.stdout).toMatch(/ann\s+bob\s+12\s+83\.3%\s+0\.667/);
  });

  it("names an unknown column and lists the header", async () => {
    const file = writeCsv("cols.csv");
    const r = await run(agreementCommand, ["csv", file, "--item", "site,task", "--rater", "rater", "--label", "verdict"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--rater: column "rater" is not in the header of cols\.csv; the columns are "site", "task", "annotator", "verdict", "note"/);
  });

  it("rejects a rater labelling the same item twice (items keyed by task alone collide across sites)", async () => {
    const file = writeCsv("dup.csv");
    const r = await run(agreementCommand, ["csv", file, "--item", "task", "--rater", "annotator", "--label", "verdict", "--json"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/rater "ann" labelled item "t1" more than once \(line 2 and line \d+\)/);
  });

  it("reports malformed CSV with file and line", async () => {
    const file = path.join(tmp, "broken.csv");
    fs.writeFileSync(file, 'item,rater,label\n1,ann,"yes\n');
    const r = await run(agreementCommand, ["csv", file, "--item", "item", "--rater", "rater", "--label", "label"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/broken\.csv: line 2: a quoted field is never closed/);
  });

  it("checks its usage", async () => {
    expect((await run(agreementCommand, [])).code).toBe(2);
    expect((await run(agreementCommand, ["xlsx", "f"])).code).toBe(2);
    const missing = await run(agreementCommand, ["csv", "f.csv", "--item", "a"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing --rater, --label/);
  });
});
