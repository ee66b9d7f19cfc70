/**
 * Published values for the intervals tests expect, so a test never uses the implementation as its own oracle.
 * Wilson 95 % score intervals (z = 1.959963984540054), as statsmodels' proportion_confint(method="wilson") and R's
 * prop.test(correct = FALSE) give them, to 6 decimals; agreement.test.ts checks 5/10 and 1/1000 the same way.
 */
import { expect } from "vitest";

const WILSON_95: Record<string, [number, number]> = {
  "0/1": [0, 0.793451],
  "1/1": [0.206549, 1],
  "1/2": [0.094531, 0.905469],
  "2/3": [0.20766, 0.938508],
  "1/3": [0.061492, 0.79234],
  "3/4": [0.300642, 0.954413],
  "4/4": [0.510109, 1],
};

/** The interval `wilsonInterval(successes, n)` must return, with bounds matched to 5 decimals. */
export function wilson95(successes: number, n: number) {
  const bounds = WILSON_95[`${successes}/${n}`];
  if (!bounds) throw new Error(`no published Wilson interval for ${successes}/${n} in tests/helpers/intervals.ts`);
  return { successes, n, estimate: successes / n, low: expect.closeTo(bounds[0], 5), high: expect.closeTo(bounds[1], 5) };
}
