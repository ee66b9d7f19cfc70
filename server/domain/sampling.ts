/**
 * Seeded random samples of trajectories, for campaigns ("label 200 of these") and spot checks. The same seed over
 * the same set of trajectories always gives the same sample, whatever order the set was read in: candidates are
 * sorted by id before the seeded shuffle. A stratified sample draws from each stratum (run, site) in proportion to
 * its size, so a small run is not left out by chance.
 */
import { ValidationError } from "../errors";
import { createRng } from "./agreement/random";

export interface SampleCandidate {
  id: number;
  /** The candidate's stratum (run name, site…); null when it has none (it then forms a stratum of its own). */
  stratum?: string | null;
}

export class SampleInputError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = "SampleInputError";
  }
}

/** How many of each stratum a sample of `n` takes: proportional, remainders to the largest fractions (ties by name). */
export function allocateStrata(sizes: ReadonlyMap<string, number>, n: number): Map<string, number> {
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  const names = [...sizes.keys()].sort();
  const out = new Map<string, number>();
  if (n >= total) {
    for (const name of names) out.set(name, sizes.get(name)!);
    return out;
  }
  const fractions: { name: string; frac: number }[] = [];
  let given = 0;
  for (const name of names) {
    const quota = (n * sizes.get(name)!) / total;
    const whole = Math.floor(quota);
    out.set(name, whole);
    given += whole;
    fractions.push({ name, frac: quota - whole });
  }
  fractions.sort((a, b) => b.frac - a.frac || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 0; given < n; i++, given++) {
    const name = fractions[i]!.name;
    out.set(name, out.get(name)! + 1);
  }
  return out;
}

/** FNV-1a over the text, mixed with the seed: each stratum gets its own stream, unchanged when another stratum changes. */
export function streamSeed(seed: number, text: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** `n` of `ids` (already sorted ascending): a partial Fisher–Yates shuffle driven by the seeded generator. */
function drawSorted(ids: number[], n: number, seed: number): number[] {
  if (n >= ids.length) return ids;
  const pool = [...ids];
  const rng = createRng(seed);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rng() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, n);
}

/**
 * A seeded random sample of `n` candidates' ids, ascending. With `stratified`, candidates are grouped by stratum
 * and each group gives its proportional share (see allocateStrata). Fewer than `n` candidates: all of them.
 */
export function seededSample(candidates: readonly SampleCandidate[], n: number, seed: number, opts: { stratified?: boolean } = {}): number[] {
  if (!Number.isInteger(n) || n < 1) throw new SampleInputError(`sample size: a whole number of at least 1, got ${n}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 4_294_967_295) throw new SampleInputError(`seed: a whole number from 0 to 4294967295, got ${seed}`);
  const seen = new Set<number>();
  const unique: SampleCandidate[] = [];
  for (const c of candidates) {
    if (!Number.isInteger(c.id)) throw new SampleInputError(`candidate id: a whole number, got ${c.id}`);
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    unique.push(c);
  }
  unique.sort((a, b) => a.id - b.id);
  if (!opts.stratified)
    return drawSorted(
      unique.map((c) => c.id),
      n,
      seed,
    ).sort((a, b) => a - b);

  const groups = new Map<string, number[]>();
  for (const c of unique) {
    // A null stratum gets a name no real value has, so it never merges with a run or site called "".
    const key = c.stratum ?? "\u0000none";
    const list = groups.get(key) ?? [];
    list.push(c.id);
    groups.set(key, list);
  }
  const quotas = allocateStrata(new Map([...groups].map(([k, v]) => [k, v.length])), n);
  const out: number[] = [];
  for (const [name, ids] of groups) out.push(...drawSorted(ids, quotas.get(name) ?? 0, streamSeed(seed, name)));
  return out.sort((a, b) => a - b);
}
