/**
 * Consensus models on a generated campaign the size of the target: 100,000 trajectories × 3 annotators.
 * Every annotator answers the truth with probability θ (their competence) and otherwise a class drawn uniformly,
 * so their accuracy is θ + (1 − θ)/K; the truth is uniform over K classes. Seeded, so every run sees the same data.
 *
 * Reported: the Dawid–Skene fit from integer label arrays (the form the human-agreement view builds from its label
 * columns; the whole view after a label write is timed by `npm run bench -- analytics`) against ≤ 300 ms; the same
 * from string records as a CSV would give them, encoding included; MACE (10 restarts);
 * and recovery — accuracy of each consensus against the generating truth, next to the majority vote's, and the
 * largest gap between an annotator's estimated and true accuracy (Dawid–Skene) or competence (MACE).
 */
import { createRng, dawidSkene, encodeConsensusRecords, mace, majorityClasses, type ConsensusLabels, type RatingRecord } from "../../server/domain/agreement";
import { medianMs as medianOfRuns, type BenchFigure } from "./types";

const RUNS = 5;

/** Median of RUNS calls (or `runs`) after a warm-up. */
const medianMs = (fn: () => unknown, runs = RUNS) => medianOfRuns(fn, runs);

function generate(items: number, classes: number, competence: number[], seed: number) {
  const rng = createRng(seed);
  const truth = new Int32Array(items);
  const n = items * competence.length;
  const data: ConsensusLabels = {
    items,
    annotators: competence.length,
    classes,
    item: new Int32Array(n),
    annotator: new Int32Array(n),
    label: new Int32Array(n),
  };
  let t = 0;
  for (let i = 0; i < items; i++) {
    truth[i] = Math.floor(rng() * classes);
    for (let j = 0; j < competence.length; j++) {
      data.item[t] = i;
      data.annotator[t] = j;
      data.label[t] = rng() < competence[j]! ? truth[i]! : Math.floor(rng() * classes);
      t++;
    }
  }
  return { data, truth };
}

function share(label: Int32Array, truth: Int32Array): number {
  let right = 0;
  for (let i = 0; i < truth.length; i++) if (label[i] === truth[i]) right++;
  return right / truth.length;
}

export async function benchConsensus(): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const items = 100_000;
  const competence = [0.9, 0.7, 0.5];
  for (const classes of [2, 5]) {
    const { data, truth } = generate(items, classes, competence, classes);
    const names = Array.from({ length: classes }, (_, k) => `class-${k}`);
    const records: RatingRecord[] = Array.from(data.item, (i, t) => ({
      item: `traj-${i}`,
      rater: `annotator-${data.annotator[t]}`,
      label: names[data.label[t]!]!,
    }));
    const what = `${classes} classes`;

    const dsMs = medianMs(() => dawidSkene(data));
    figures.push({ name: `Dawid–Skene fit, 100,000 × 3, ${what}`, value: dsMs, unit: "ms", target: "≤ 300 ms", ok: dsMs <= 300 });
    const recordsMs = medianMs(() => dawidSkene(encodeConsensusRecords(records, names).data));
    figures.push({ name: `  from string records (CSV-style, encoding included)`, value: recordsMs, unit: "ms" });
    const maceMs = medianMs(() => mace(data), 3);
    figures.push({ name: `MACE (10 restarts), 100,000 × 3, ${what}`, value: maceMs, unit: "ms", target: "≤ 300 ms", ok: maceMs <= 300 });

    const ds = dawidSkene(data);
    const mc = mace(data);
    figures.push({ name: `  majority vote accuracy vs truth (ties wrong)`, value: share(majorityClasses(data), truth), unit: "share" });
    figures.push({ name: `  Dawid–Skene accuracy vs truth`, value: share(ds.label, truth), unit: "share" });
    figures.push({ name: `  MACE accuracy vs truth`, value: share(mc.label, truth), unit: "share" });
    const trueAccuracy = competence.map((c) => c + (1 - c) / classes);
    const dsGap = Math.max(...trueAccuracy.map((a, j) => Math.abs(ds.accuracy[j]! - a)));
    figures.push({ name: `  DS largest |estimated − true annotator accuracy|`, value: dsGap, unit: "", target: "≤ 0.02", ok: dsGap <= 0.02 });
    const maceGap = Math.max(...competence.map((c, j) => Math.abs(mc.competence[j]! - c)));
    figures.push({ name: `  MACE largest |estimated − true competence|`, value: maceGap, unit: "", target: "≤ 0.02", ok: maceGap <= 0.02 });
    figures.push({ name: `  distinct label patterns / EM iterations (DS)`, value: ds.patterns, unit: `/ ${ds.iterations} it.` });
  }
  return figures;
}
