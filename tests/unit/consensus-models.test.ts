/**
 * Consensus models (Dawid–Skene, MACE) against the published Dawid & Skene (1979) anaesthetist example and small
 * hand-worked cases whose answers follow from the models' assumptions.
 */
import { describe, expect, it } from "vitest";
import {
  AgreementInputError,
  consolidatedLabels,
  createRng,
  dawidSkene,
  encodeConsensusRecords,
  groupConsensusLabels,
  labelPatterns,
  mace,
  majorityClasses,
  MISSING,
  type ConsensusLabels,
  type RatingRecord,
} from "@/server/domain/agreement";

/**
 * Dawid & Skene (1979), Table 1: 45 patients rated 1–4 for fitness for anaesthesia by five anaesthetists. Each row
 * is one patient: observer 1's three ratings (they examined every patient three times), then observers 2, 3, 4, 5.
 */
const ANAESTHESIA_TABLE = [
  "111 1111",
  "333 4334",
  "112 2122",
  "222 3121",
  "222 3222",
  "222 3322",
  "122 2111",
  "333 3433",
  "222 2223",
  "232 2223",
  "444 4444",
  "222 3343",
  "111 1111",
  "222 3212",
  "121 1111",
  "111 2111",
  "111 1111",
  "111 1111",
  "222 2221",
  "222 1322",
  "222 2222",
  "222 2221",
  "222 3222",
  "221 2222",
  "111 1111",
  "111 1111",
  "232 2222",
  "111 1111",
  "111 1111",
  "112 1121",
  "111 1111",
  "333 3233",
  "111 1111",
  "222 2222",
  "222 3232",
  "433 4343",
  "221 2232",
  "232 3233",
  "333 3432",
  "111 1111",
  "111 1111",
  "121 2111",
  "232 2222",
  "121 1111",
  "222 2222",
];

function anaesthesiaLabels(): ConsensusLabels {
  const item: number[] = [];
  const annotator: number[] = [];
  const label: number[] = [];
  ANAESTHESIA_TABLE.forEach((row, patient) => {
    const [first, others] = row.split(" ") as [string, string];
    for (const r of first) {
      item.push(patient);
      annotator.push(0);
      label.push(Number(r) - 1);
    }
    [...others].forEach((r, o) => {
      item.push(patient);
      annotator.push(o + 1);
      label.push(Number(r) - 1);
    });
  });
  return { items: 45, annotators: 5, classes: 4, item: Int32Array.from(item), annotator: Int32Array.from(annotator), label: Int32Array.from(label) };
}

const round2 = (xs: ArrayLike<number>) => Array.from(xs, (x) => Math.round(x * 100) / 100);

describe("Dawid–Skene on the published anaesthetist example", () => {
  const fit = dawidSkene(anaesthesiaLabels(), { smoothing: 0, tolerance: 1e-12, maxIterations: 1000 });

  it("reproduces the paper's estimated class marginals (Table 2)", () => {
    expect(fit.converged).toBe(true);
    expect(round2(fit.classPrior)).toEqual([0.4, 0.42, 0.11, 0.07]);
  });

  it("reproduces observer 1's estimated error rates (Table 3)", () => {
    const observer1 = [0, 1, 2, 3].map((k) => round2(fit.confusion.subarray(k * 4, k * 4 + 4)));
    expect(observer1).toEqual([
      [0.89, 0.11, 0, 0],
      [0.07, 0.88, 0.05, 0],
      [0, 0.34, 0.66, 0],
      [0, 0, 0.56, 0.44],
    ]);
  });

  it("reproduces the final patient classes of the first patients (Table 4)", () => {
    const firstSix = [0, 1, 2, 3, 4, 5].map((i) => round2(fit.posterior.subarray(i * 4, i * 4 + 4)));
    expect(firstSix).toEqual([
      [1, 0, 0, 0],
      [0, 0, 0, 1],
      [0, 1, 0, 0],
      [0, 1, 0, 0],
      [0, 1, 0, 0],
      [0, 1, 0, 0],
    ]);
    // Patient 2: observers said 3, 3, 3, 4, 3, 3, 4 — a majority of 3, but the model trusts the two who said 4.
    expect(fit.label[1]).toBe(3);
    expect(majorityClasses(anaesthesiaLabels())[1]).toBe(2);
  });

  it("never lowers the log-likelihood from one iteration to the next", () => {
    for (let t = 1; t < fit.logLikelihood.length; t++) expect(fit.logLikelihood[t]!).toBeGreaterThanOrEqual(fit.logLikelihood[t - 1]! - 1e-9);
    expect(fit.iterations).toBe(fit.logLikelihood.length);
  });
});

/** Labels from a table of rows [item, annotator, class]. */
function labelsOf(rows: [number, number, number][], items: number, annotators: number, classes: number): ConsensusLabels {
  return {
    items,
    annotators,
    classes,
    item: Int32Array.from(rows, (r) => r[0]),
    annotator: Int32Array.from(rows, (r) => r[1]),
    label: Int32Array.from(rows, (r) => r[2]),
  };
}

/**
 * Generated campaign: `items` items with a true class drawn uniformly, each annotator answering the truth with
 * their accuracy and otherwise one of the other classes uniformly, or (for "spam") always class 0, or (for
 * "invert", binary only) always the other class. Each annotator skips an item with probability `skip`.
 */
function generated(items: number, classes: number, annotators: (number | "spam" | "invert")[], seed: number, skip = 0) {
  const rng = createRng(seed);
  const truth = new Int32Array(items);
  const rows: [number, number, number][] = [];
  for (let i = 0; i < items; i++) {
    const t = Math.floor(rng() * classes);
    truth[i] = t;
    annotators.forEach((a, j) => {
      if (rng() < skip) return;
      let l: number;
      if (a === "spam") l = 0;
      else if (a === "invert") l = 1 - t;
      else if (rng() < a) l = t;
      else l = (t + 1 + Math.floor(rng() * (classes - 1))) % classes;
      rows.push([i, j, l]);
    });
  }
  return { data: labelsOf(rows, items, annotators.length, classes), truth };
}

function accuracy(label: Int32Array, truth: Int32Array): number {
  let right = 0;
  for (let i = 0; i < truth.length; i++) if (label[i] === truth[i]) right++;
  return right / truth.length;
}

describe("Dawid–Skene on hand-worked examples", () => {
  it("matches one EM iteration worked on paper", () => {
    // Item 0: A says 0, B says 0. Item 1: A says 0, B says 1. Start T = [1, 0] and [½, ½].
    // M-step: p = [¾, ¼]; π_A = [[1, 0], [1, 0]]; π_B = [[⅔, ⅓], [0, 1]].
    // E-step: item 0 → ¾·1·⅔ = ½ vs ¼·1·0 = 0; item 1 → ¾·1·⅓ = ¼ vs ¼·1·1 = ¼. Log-likelihood ln ½ + ln ½.
    const fit = dawidSkene(
      labelsOf(
        [
          [0, 0, 0],
          [0, 1, 0],
          [1, 0, 0],
          [1, 1, 1],
        ],
        2,
        2,
        2,
      ),
      { smoothing: 0, maxIterations: 1 },
    );
    expect(Array.from(fit.classPrior)).toEqual([0.75, 0.25]);
    expect(Array.from(fit.confusion)).toEqual([1, 0, 1, 0, 2 / 3, 1 / 3, 0, 1].map((x) => expect.closeTo(x, 12)));
    expect(Array.from(fit.posterior)).toEqual([1, 0, 0.5, 0.5].map((x) => expect.closeTo(x, 12)));
    expect(fit.logLikelihood).toEqual([expect.closeTo(-2 * Math.LN2, 12)]);
    expect(fit.converged).toBe(false);
  });

  it("is sure of items every annotator agrees on", () => {
    const rows: [number, number, number][] = [];
    for (let i = 0; i < 20; i++) for (let j = 0; j < 3; j++) rows.push([i, j, i % 3]);
    const fit = dawidSkene(labelsOf(rows, 20, 3, 3));
    for (let i = 0; i < 20; i++) expect(fit.posterior[i * 3 + (i % 3)]).toBeGreaterThan(0.999);
    expect(Array.from(fit.label)).toEqual(Array.from({ length: 20 }, (_, i) => i % 3));
  });

  it("finds an adversarial annotator's confusion matrix inverted and still uses their labels", () => {
    const { data, truth } = generated(600, 2, [0.85, 0.8, 0.75, "invert"], 7);
    const fit = dawidSkene(data);
    const adversary = 3 * 4;
    // π[0][1] and π[1][0]: always the other class.
    expect(fit.confusion[adversary + 1]).toBeGreaterThan(0.97);
    expect(fit.confusion[adversary + 2]).toBeGreaterThan(0.97);
    expect(fit.accuracy[3]).toBeLessThan(0.03);
    // Read backwards, the inverter is a perfect oracle: the consensus is (almost) the truth.
    expect(accuracy(fit.label, truth)).toBeGreaterThan(0.99);
    expect(fit.accuracy[0]).toBeCloseTo(0.85, 1);
  });

  it("handles skipped items, unlabelled items and a class nobody used", () => {
    const { data, truth } = generated(400, 2, [0.9, 0.8, 0.7], 3, 0.3);
    // Three classes declared, only two used; plus an item nobody labelled.
    const wider: ConsensusLabels = { ...data, items: data.items + 1, classes: 3 };
    const fit = dawidSkene(wider);
    expect(fit.classPrior[2]).toBeLessThan(1e-3);
    expect(fit.posterior.every((x) => Number.isFinite(x))).toBe(true);
    expect(fit.label[400]).toBe(MISSING);
    expect(Array.from(fit.posterior.subarray(400 * 3))).toEqual(Array.from(fit.classPrior));
    // With 30% of labels skipped many items rest on one or two labels; the model should still beat the vote.
    const vote = majorityClasses(data);
    expect(accuracy(fit.label.subarray(0, 400), truth)).toBeGreaterThan(0.8);
    expect(accuracy(fit.label.subarray(0, 400), truth)).toBeGreaterThanOrEqual(accuracy(vote, truth));
  });

  it("recovers the truth and each annotator's accuracy better than the majority vote", () => {
    const { data, truth } = generated(5000, 3, [0.9, 0.65, 0.55], 11);
    const fit = dawidSkene(data);
    expect(fit.converged).toBe(true);
    const majority = majorityClasses(data);
    expect(accuracy(fit.label, truth)).toBeGreaterThan(accuracy(majority, truth));
    expect(fit.accuracy[0]).toBeCloseTo(0.9, 1);
    expect(fit.accuracy[1]).toBeCloseTo(0.65, 1);
    expect(fit.accuracy[2]).toBeCloseTo(0.55, 1);
  });
});

describe("MACE", () => {
  it("matches one EM iteration worked on paper", () => {
    // Same labels as the Dawid–Skene case. Start T = [1, 0], [½, ½], θ = ½, ξ = [½, ½].
    // Expected spam: A on item 0 (says 0): (¼)/(¾) = ⅓; A on item 1: ½ + ½·⅓ = ⅔; B likewise ⅓ (says 0) and ⅔ (says 1).
    // M-step: θ_A = θ_B = ½; ξ_A = [1, 0]; ξ_B = [⅓, ⅔].
    // E-step: item 0 → class 0: 1·⅔, class 1: ½·⅙ = 1/12 → 8/9; item 1 → class 0: 1·⅓, class 1: ½·⅚ = 5/12 → 4/9.
    // Log-likelihood: 2·ln(½·¾) = 2·ln ⅜.
    const fit = mace(
      labelsOf(
        [
          [0, 0, 0],
          [0, 1, 0],
          [1, 0, 0],
          [1, 1, 1],
        ],
        2,
        2,
        2,
      ),
      { smoothing: 0, maxIterations: 1, restarts: 1 },
    );
    expect(fit.competence).toEqual([expect.closeTo(0.5, 12), expect.closeTo(0.5, 12)]);
    expect(Array.from(fit.posterior)).toEqual([8 / 9, 1 / 9, 4 / 9, 5 / 9].map((x) => expect.closeTo(x, 12)));
    expect(fit.logLikelihood).toEqual([expect.closeTo(2 * Math.log(3 / 8), 12)]);
  });

  it("is sure of items every annotator agrees on", () => {
    const rows: [number, number, number][] = [];
    for (let i = 0; i < 20; i++) for (let j = 0; j < 3; j++) rows.push([i, j, i % 2]);
    const fit = mace(labelsOf(rows, 20, 3, 2));
    for (let i = 0; i < 20; i++) expect(fit.posterior[i * 2 + (i % 2)]).toBeGreaterThan(0.99);
    for (const c of fit.competence) expect(c).toBeGreaterThan(0.95);
  });

  it("gives a spammer who always answers the same class low competence", () => {
    const { data, truth } = generated(1000, 2, [0.9, 0.85, 0.8, "spam"], 5);
    const fit = mace(data);
    expect(fit.competence[3]).toBeLessThan(0.1);
    // What the spammer answers when spamming: always class 0.
    expect(fit.spamming[3 * 2]).toBeGreaterThan(0.95);
    // A good annotator with accuracy a on two classes: a = θ + (1 − θ)/2 with even spam, so θ ≈ 2a − 1.
    expect(fit.competence[0]).toBeCloseTo(0.8, 1);
    // The best possible from three independent annotators at 0.9, 0.85 and 0.8 is their majority: 0.941.
    expect(accuracy(fit.label, truth)).toBeGreaterThan(0.92);
    // The spammer drags the majority vote towards class 0; MACE does not.
    expect(accuracy(fit.label, truth)).toBeGreaterThan(accuracy(majorityClasses(data), truth));
  });

  it("is reproducible for a seed and keeps the best of its restarts", () => {
    const { data } = generated(500, 3, [0.7, 0.6, 0.5], 9, 0.2);
    const a = mace(data, { seed: 42, restarts: 5 });
    const b = mace(data, { seed: 42, restarts: 5 });
    expect(Array.from(a.posterior)).toEqual(Array.from(b.posterior));
    expect(a.bestRestart).toBe(b.bestRestart);
    const single = mace(data, { restarts: 1 });
    expect(a.logLikelihood.at(-1)!).toBeGreaterThanOrEqual(single.logLikelihood.at(-1)! - 1e-9);
  });
});

describe("consensus input", () => {
  it("names the field and entry of an out-of-range label", () => {
    const bad = labelsOf(
      [
        [0, 0, 0],
        [0, 1, 2],
      ],
      1,
      2,
      2,
    );
    expect(() => dawidSkene(bad)).toThrow(AgreementInputError);
    expect(() => dawidSkene(bad)).toThrow("label[1] is 2, outside 0 … 1");
    expect(() => mace({ ...bad, annotator: Int32Array.of(0) })).toThrow("same length");
    expect(() => mace(labelsOf([[0, 0, 0]], 1, 1, 2), { restarts: 0 })).toThrow("restarts must be a positive integer");
  });

  it("encodes rating records with a fixed category list and rejects unknown labels by record", () => {
    const records: RatingRecord[] = [
      { item: "t1", rater: "ann", label: "success" },
      { item: "t1", rater: "bob", label: "failure" },
      { item: "t2", rater: "ann", label: "success" },
    ];
    const encoded = encodeConsensusRecords(records, ["failure", "success", "unsure"]);
    expect(encoded.data.classes).toBe(3);
    expect(Array.from(encoded.data.label)).toEqual([1, 0, 1]);
    expect(encoded.itemNames).toEqual(["t1", "t2"]);
    expect(encoded.annotatorNames).toEqual(["ann", "bob"]);
    expect(() => encodeConsensusRecords([{ item: "t9", rater: "cy", label: "maybe", source: "line 4" }], ["failure", "success"])).toThrow(
      /record line 4 \(item "t9"\): label "maybe" is not one of the categories/,
    );
  });

  it("groups trajectories by the same labels from the same annotators, in any order", () => {
    // Items 0 and 1: A says 0, B says 1 (given in either order); item 2: A says 1, B says 0; item 3: nobody.
    const p = labelPatterns(
      labelsOf(
        [
          [0, 0, 0],
          [0, 1, 1],
          [1, 1, 1],
          [1, 0, 0],
          [2, 0, 1],
          [2, 1, 0],
        ],
        4,
        2,
        2,
      ),
    );
    expect(p.count).toBe(2);
    expect(Array.from(p.itemPattern)).toEqual([0, 0, 1, MISSING]);
    expect(Array.from(p.weight)).toEqual([2, 1]);
    expect(p.labelledItems).toBe(3);
  });

  it("fits the same from grouped labels as from plain ones", () => {
    const { data } = generated(300, 3, [0.8, 0.6, 0.7], 13, 0.1);
    const labels = groupConsensusLabels(data);
    expect(Array.from(dawidSkene(labels).posterior)).toEqual(Array.from(dawidSkene(data).posterior));
    expect(Array.from(mace(labels).posterior)).toEqual(Array.from(mace(data).posterior));
  });

  it("fits a campaign with no labels yet without inventing reliabilities", () => {
    const empty = labelsOf([], 0, 2, 2);
    const ds = dawidSkene(empty);
    const mc = mace(empty);
    expect(ds.accuracy).toEqual([null, null]);
    expect(mc.competence).toEqual([null, null]);
    expect(ds.logLikelihood.every(Number.isFinite)).toBe(true);
    expect(majorityClasses(empty)).toHaveLength(0);
  });

  it("finds no majority on a tie", () => {
    expect(
      Array.from(
        majorityClasses(
          labelsOf(
            [
              [0, 0, 0],
              [0, 1, 1],
              [1, 0, 1],
            ],
            3,
            2,
            2,
          ),
        ),
      ),
    ).toEqual([MISSING, 1, MISSING]);
  });
});

describe("consolidated label from a chosen model", () => {
  it("follows the model chosen: the vote falls for a spammer, MACE does not", () => {
    // 400 generated trajectories labelled by two good annotators (0.9) and two who always answer 0, then one more
    // where the good ones say 1 and the spammers 0: the vote ties, MACE sides with the annotators it trusts.
    const rows: [number, number, number][] = [];
    const { data } = generated(400, 2, [0.9, 0.9, "spam", "spam"], 21);
    for (let t = 0; t < data.item.length; t++) rows.push([data.item[t]!, data.annotator[t]!, data.label[t]!]);
    rows.push([400, 0, 1], [400, 1, 1], [400, 2, 0], [400, 3, 0]);
    const labels = labelsOf(rows, 401, 4, 2);
    const majority = consolidatedLabels(labels, "majority");
    expect(majority.label[400]).toBe(MISSING);
    expect(majority.confidence[400]).toBe(0);
    const byMace = consolidatedLabels(labels, "mace");
    expect(byMace.label[400]).toBe(1);
    expect(byMace.confidence[400]).toBeGreaterThan(0.9);
    const byDs = consolidatedLabels(groupConsensusLabels(labels), "dawid-skene");
    expect(Array.from(byDs.label)).toEqual(Array.from(dawidSkene(labels).label));
  });

  it("gives the majority's vote share as its confidence", () => {
    const c = consolidatedLabels(
      labelsOf(
        [
          [0, 0, 1],
          [0, 1, 1],
          [0, 2, 0],
          [1, 0, 0],
        ],
        3,
        3,
        2,
      ),
      "majority",
    );
    expect(Array.from(c.label)).toEqual([1, 0, MISSING]);
    expect(Array.from(c.confidence)).toEqual([2 / 3, 1, 0]);
  });

  it("names the models it knows", () => {
    expect(() => consolidatedLabels(labelsOf([[0, 0, 0]], 1, 1, 1), "glad" as never)).toThrow("model must be one of majority, dawid-skene, mace");
  });
});
