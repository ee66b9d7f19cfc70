import { describe, expect, it } from "vitest";
import { allocateStrata, SampleInputError, seededSample } from "../../server/domain/sampling";

const candidates = (n: number, stratum?: (id: number) => string | null) => Array.from({ length: n }, (_, i) => ({ id: i + 1, stratum: stratum?.(i + 1) }));

describe("seededSample", () => {
  it("gives the same sample for the same seed, whatever order the candidates come in", () => {
    const list = candidates(500);
    const a = seededSample(list, 20, 1234);
    const b = seededSample([...list].reverse(), 20, 1234);
    expect(a).toEqual(b);
    expect(a).toHaveLength(20);
    expect(new Set(a).size).toBe(20);
    expect(a).toEqual([...a].sort((x, y) => x - y));
    expect(a.every((id) => id >= 1 && id <= 500)).toBe(true);
  });

  it("gives a different sample for a different seed", () => {
    const list = candidates(500);
    expect(seededSample(list, 20, 1)).not.toEqual(seededSample(list, 20, 2));
  });

  it("is pinned: seed 42 over ids 1..10 draws these three (a changed generator or shuffle would show here)", () => {
    // mulberry32(42) draws 0.6011, 0.4482, 0.8524. Over the pool [1..10]: slot 0 swaps with 0+⌊0.6011·10⌋ = 6 (id 7),
    // slot 1 with 1+⌊0.4482·9⌋ = 5 (id 6), slot 2 with 2+⌊0.8524·8⌋ = 8 (id 9).
    expect(seededSample(candidates(10), 3, 42)).toEqual([6, 7, 9]);
  });

  it("returns every candidate when asked for more than there are", () => {
    expect(seededSample([{ id: 9 }, { id: 3 }, { id: 3 }], 10, 7)).toEqual([3, 9]);
  });

  it("draws from each stratum in proportion to its size", () => {
    // 60 of run A, 30 of run B, 10 of run C: a sample of 10 takes 6, 3 and 1.
    const list = candidates(100, (id) => (id <= 60 ? "A" : id <= 90 ? "B" : "C"));
    const got = seededSample(list, 10, 99, { stratified: true });
    expect(got.filter((id) => id <= 60)).toHaveLength(6);
    expect(got.filter((id) => id > 60 && id <= 90)).toHaveLength(3);
    expect(got.filter((id) => id > 90)).toHaveLength(1);
    expect(seededSample([...list].reverse(), 10, 99, { stratified: true })).toEqual(got);
  });

  it("keeps one stratum's draw when another stratum changes", () => {
    const base = candidates(40, (id) => (id <= 20 ? "A" : "B"));
    const more = [...base, ...Array.from({ length: 20 }, (_, i) => ({ id: 1000 + i, stratum: "C" }))];
    const a = seededSample(base, 10, 5, { stratified: true }).filter((id) => id <= 20);
    const b = seededSample(more, 15, 5, { stratified: true }).filter((id) => id <= 20);
    expect(b).toEqual(a);
  });

  it("treats a missing stratum as a stratum of its own", () => {
    const list = candidates(20, (id) => (id <= 10 ? null : "x"));
    const got = seededSample(list, 4, 3, { stratified: true });
    expect(got.filter((id) => id <= 10)).toHaveLength(2);
  });

  it("refuses a bad size or seed with a message naming it", () => {
    expect(() => seededSample(candidates(3), 0, 1)).toThrow(SampleInputError);
    expect(() => seededSample(candidates(3), 0, 1)).toThrow(/sample size/);
    expect(() => seededSample(candidates(3), 2, -1)).toThrow(/seed/);
    expect(() => seededSample(candidates(3), 2, 1.5)).toThrow(/seed/);
  });
});

describe("allocateStrata", () => {
  it("gives the remainder to the largest fractions, ties by name", () => {
    // 3 of 9 over three strata of 3 each: one each. 2 of 9: the remainder goes to the first names.
    expect(
      allocateStrata(
        new Map([
          ["b", 3],
          ["a", 3],
          ["c", 3],
        ]),
        3,
      ),
    ).toEqual(
      new Map([
        ["a", 1],
        ["b", 1],
        ["c", 1],
      ]),
    );
    expect(
      allocateStrata(
        new Map([
          ["b", 3],
          ["a", 3],
          ["c", 3],
        ]),
        2,
      ),
    ).toEqual(
      new Map([
        ["a", 1],
        ["b", 1],
        ["c", 0],
      ]),
    );
    expect(
      allocateStrata(
        new Map([
          ["x", 1],
          ["y", 99],
        ]),
        10,
      ),
    ).toEqual(
      new Map([
        ["x", 0],
        ["y", 10],
      ]),
    );
    expect(allocateStrata(new Map([["x", 2]]), 5)).toEqual(new Map([["x", 2]]));
  });
});
