/**
 * Agreement statistics speed on generated labels (seeded, so every run sees the same data):
 * - the Cohen κ core on 1,000,000 label pairs, from string labels to κ with its standard errors (target ≤ 100 ms),
 *   unweighted binary and quadratic-weighted over a 5-point scale; and from stored labels, the codes labels are
 *   kept in once encoded (target ≤ 10 ms), next to scikit-learn's cohen_kappa_score on the same codes;
 * - Krippendorff's α (nominal) on 100,000 items × 3 raters with 10% missing labels;
 * - the whole long-form analysis (α, mean pairwise agreement, Fleiss' κ, pairwise κ) on 100,000 items × 3 raters
 *   (every item rated by all three, so Fleiss' κ is defined), from string records and from stored labels (codes),
 *   against statsmodels' Fleiss' κ alone (aggregate_raters + fleiss_kappa) on the same codes in the same run;
 * - the percentile bootstrap interval of κ (2,000 resamples, what the judge page asks for) on 100,000 pairs, against
 *   resampling pair by pair (the same distribution; timed on fewer resamples and scaled).
 * Each figure is the median of several timed runs after one warm-up run. The references run in Debian's Python
 * (/usr/bin/python3, where python3-sklearn and python3-statsmodels install; BENCH_PYTHON to choose another) on
 * the same data, written to a temporary folder (scripts/bench/agreement-reference.py); when a library is absent
 * the bench says so on a line of its own and compares with nothing.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  analyzeCodedRatings,
  analyzeRatings,
  bootstrapKappaInterval,
  cohenKappa,
  cohenKappaCodes,
  createRng,
  encodeLabels,
  krippendorffAlphaNominal,
  LabelCodec,
  type CodedRatings,
  type Label,
  type RatingRecord,
} from "../../server/domain/agreement";
import { medianMs as medianOfRuns, type BenchFigure } from "./types";

interface ReferenceTiming {
  version?: string;
  ms?: number;
  kappa?: number;
  absent?: string;
}

/** scikit-learn's and statsmodels' timings on the data in `folder`, or why there are none. */
function referenceTimings(folder: string): { python: string; sklearn?: ReferenceTiming; statsmodels?: ReferenceTiming; absent?: string } {
  const python = process.env.BENCH_PYTHON ?? (fs.existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3");
  const script = path.join(import.meta.dirname, "agreement-reference.py");
  try {
    const out = execFileSync(python, [script, folder], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return JSON.parse(out) as ReturnType<typeof referenceTimings>;
  } catch (e) {
    return { python, absent: `${python} could not run ${path.basename(script)}: ${(e as Error).message.split("\n")[0]}` };
  }
}

function writeInt32(file: string, codes: Int32Array): void {
  const bytes = Buffer.alloc(codes.length * 4);
  for (let i = 0; i < codes.length; i++) bytes.writeInt32LE(codes[i]!, i * 4);
  fs.writeFileSync(file, bytes);
}

const RUNS = 7;

/** Median of RUNS calls (or `runs`) after a warm-up. */
const medianMs = (fn: () => unknown, runs = RUNS) => medianOfRuns(fn, runs);

/** Two raters: b copies a with probability `copy`, else draws independently. */
function labelPairs(n: number, categories: string[], copy: number, seed: number): { a: string[]; b: string[] } {
  const rng = createRng(seed);
  const pick = () => categories[Math.floor(rng() * categories.length)]!;
  const a: string[] = [];
  const b: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = pick();
    a.push(x);
    b.push(rng() < copy ? x : pick());
  }
  return { a, b };
}

/** Coders × units with a latent label per unit, 70% copied, 10% missing. */
function reliabilityData(units: number, coders: number, categories: string[], seed: number): Label[][] {
  const rng = createRng(seed);
  const rows: Label[][] = Array.from({ length: coders }, () => new Array<Label>(units));
  for (let u = 0; u < units; u++) {
    const latent = categories[Math.floor(rng() * categories.length)]!;
    for (let c = 0; c < coders; c++) {
      rows[c]![u] = rng() < 0.1 ? null : rng() < 0.7 ? latent : categories[Math.floor(rng() * categories.length)]!;
    }
  }
  return rows;
}

/** Items × raters label codes (row-major), each item's labels 70% a latent label, else drawn; no gaps. */
function completeRatings(items: number, raters: number, categories: string[], seed: number): { items: number; matrix: Int32Array } {
  const rng = createRng(seed);
  const k = categories.length;
  const matrix = new Int32Array(items * raters);
  for (let u = 0; u < items; u++) {
    const latent = Math.floor(rng() * k);
    for (let c = 0; c < raters; c++) matrix[u * raters + c] = rng() < 0.7 ? latent : Math.floor(rng() * k);
  }
  return { items, matrix };
}

export async function benchAgreement(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];

  const binary = labelPairs(1_000_000, ["success", "failure"], 0.8, 1);
  const binaryMs = medianMs(() => cohenKappa(binary.a, binary.b));
  figures.push({ name: "Cohen κ + SE, 1,000,000 label pairs (binary)", value: binaryMs, unit: "ms", target: "≤ 100 ms", ok: binaryMs <= 100 });

  // The same labels as stored labels: encoded once (as the analytics cache holds a campaign's labels), then κ counts
  // the codes.
  const codec = new LabelCodec();
  const codesA = encodeLabels(binary.a, codec, "a");
  const codesB = encodeLabels(binary.b, codec, "b");
  const codedMs = medianMs(() => cohenKappaCodes(codesA, codesB, codec.labels));
  figures.push({ name: "Cohen κ + SE from stored labels (codes), 1,000,000 pairs", value: codedMs, unit: "ms", target: "≤ 10 ms", ok: codedMs <= 10 });
  const sklearnAt = figures.length; // its reference goes here, once timed with the others at the end

  const scale = ["1", "2", "3", "4", "5"];
  const likert = labelPairs(1_000_000, scale, 0.6, 2);
  const likertMs = medianMs(() => cohenKappa(likert.a, likert.b, { weighting: "quadratic", categories: scale }));
  figures.push({ name: "quadratic weighted κ + SE, 1,000,000 pairs (5 levels)", value: likertMs, unit: "ms", target: "≤ 100 ms", ok: likertMs <= 100 });

  const errorCategories = ["navigation_error", "wrong_element_clicked", "hallucinated_answer", "timeout", "other"];
  const data = reliabilityData(100_000, 3, errorCategories, 3);
  const alphaMs = medianMs(() => krippendorffAlphaNominal(data));
  figures.push({ name: "Krippendorff α nominal, 100,000 items × 3 raters", value: alphaMs, unit: "ms", target: "≤ 300 ms", ok: alphaMs <= 300 });

  const pairs = labelPairs(100_000, ["success", "failure"], 0.8, 4);
  const cells = Int32Array.from(pairs.a, (x, i) => (x === "success" ? 0 : 2) + (pairs.b[i] === "success" ? 0 : 1));
  const bootstrapMs = medianMs(() => bootstrapKappaInterval(cells, 2, "none", { replicates: 2000, seed: 1 }), 5);
  figures.push({ name: "bootstrap κ interval, 100,000 pairs × 2,000 resamples", value: bootstrapMs, unit: "ms", target: "≤ 300 ms", ok: bootstrapMs <= 300 });
  // Pair by pair, for the ratio: 50 resamples timed, scaled to 2,000.
  const plainRng = createRng(1);
  const tally = new Float64Array(4);
  const plainMs =
    (medianMs(() => {
      for (let r = 0; r < 50; r++) {
        tally.fill(0);
        for (let t = 0; t < cells.length; t++) tally[cells[Math.floor(plainRng() * cells.length)]!]!++;
      }
    }, 3) *
      2000) /
    50;
  figures.push({ name: "  resampling pair by pair instead (estimated from 50 resamples)", value: plainMs, unit: "ms" });
  figures.push({ name: "  speed-up of the multinomial resample", value: plainMs / bootstrapMs, unit: "×" });

  // 100,000 items × 3 raters, every item rated by all three (Fleiss' κ needs it, and statsmodels' takes no gaps).
  const complete = completeRatings(100_000, 3, errorCategories, 5);
  const raters = ["ann", "bob", "cy"];
  const records: RatingRecord[] = [];
  for (let u = 0; u < complete.items; u++) {
    for (let c = 0; c < 3; c++) records.push({ item: `traj-${u}`, rater: raters[c]!, label: errorCategories[complete.matrix[u * 3 + c]!]! });
  }
  const analysisMs = medianMs(() => analyzeRatings(records), 5);
  figures.push({ name: "ratings analysis (α, P̄, Fleiss, pairwise κ), 100,000 × 3", value: analysisMs, unit: "ms", target: "≤ 300 ms", ok: analysisMs <= 300 });
  const coded: CodedRatings = {
    item: Int32Array.from({ length: complete.items * 3 }, (_, t) => Math.floor(t / 3)),
    rater: Int32Array.from({ length: complete.items * 3 }, (_, t) => t % 3),
    label: complete.matrix,
    itemNames: records.filter((_, t) => t % 3 === 0).map((r) => r.item),
    raterNames: raters,
    labels: errorCategories,
  };
  const codedAnalysis = analyzeCodedRatings(coded);
  const codedAnalysisMs = medianMs(() => analyzeCodedRatings(coded), 5);

  // The references on the same codes, in the same run.
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-agreement-bench-"));
  let reference: ReturnType<typeof referenceTimings>;
  try {
    writeInt32(path.join(folder, "kappa-a.i32"), codesA);
    writeInt32(path.join(folder, "kappa-b.i32"), codesB);
    writeInt32(path.join(folder, "ratings.i32"), complete.matrix);
    reference = referenceTimings(folder);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
  const absent = (what: string, r: ReferenceTiming | undefined, into = figures) => {
    const why = reference.absent ?? r?.absent ?? "no figure";
    into.push({ name: `  ${what}: absent (${why})`.slice(0, 110), value: NaN, unit: "" });
  };
  const sk = reference.sklearn;
  const sklearnFigures: BenchFigure[] = [];
  if (sk?.ms !== undefined) {
    const gap = Math.abs(cohenKappaCodes(codesA, codesB, codec.labels).kappa! - sk.kappa!);
    sklearnFigures.push({
      name: `  scikit-learn ${sk.version} cohen_kappa_score, same codes (|κ − ours| = ${gap.toExponential(1)})`,
      value: sk.ms,
      unit: "ms",
    });
  } else absent("scikit-learn's κ", sk, sklearnFigures);
  figures.splice(sklearnAt, 0, ...sklearnFigures);

  const sm = reference.statsmodels;
  figures.push({
    name: "ratings analysis from stored labels (codes), 100,000 × 3",
    value: codedAnalysisMs,
    unit: "ms",
    target: sm?.ms !== undefined ? `≤ statsmodels' Fleiss (${sm.ms.toFixed(1)} ms)` : "≤ statsmodels' Fleiss (absent)",
    ok: sm?.ms !== undefined ? codedAnalysisMs <= sm.ms : undefined,
  });
  if (sm?.ms !== undefined) {
    const gap = Math.abs(codedAnalysis.fleiss.kappa! - sm.kappa!);
    figures.push({
      name: `  statsmodels ${sm.version} Fleiss' κ alone (aggregate_raters + fleiss_kappa), same codes (|κ − ours| = ${gap.toExponential(1)})`,
      value: sm.ms,
      unit: "ms",
    });
  } else absent("statsmodels' Fleiss κ", sm);

  return figures;
}
