/** One benchmark figure. `target` is the goal as text ("≤ 2×"); `ok` says whether it was met. */
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}
