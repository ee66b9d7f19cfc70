/**
 * A small seeded pseudo-random generator, so that bootstrap intervals are reproducible run to run.
 *
 * Mulberry32 (Tommy Ettinger's 32-bit generator): one 32-bit state word advanced by a Weyl increment and mixed
 * by two multiply-xorshift rounds. Period 2^32, good enough statistical quality for resampling, and identical
 * output on every JavaScript engine because it only uses Math.imul and 32-bit integer operations.
 */
export type Rng = () => number;

/** Returns a generator of uniform floats in [0, 1) for an integer seed (taken modulo 2^32). */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
