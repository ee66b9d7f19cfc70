/**
 * Campaign item numbers: annotators see "item 7 of campaign 3", never a trajectory id. Trajectory ids follow
 * import order, and imports go run by run, so numbering items in id order would let an annotator tell which
 * items came from the same run. Items are numbered in a shuffled order instead.
 */
/** A shuffled copy (Fisher–Yates); `randomBelow(n)` gives an integer in [0, n) (the service passes crypto.randomInt). */
export function shuffled<T>(items: readonly T[], randomBelow: (n: number) => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
