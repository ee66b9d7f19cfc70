/**
 * The footnote under figures that carry intervals: which method gives which interval (docs/statistics.md has the
 * details; each interval's tooltip names the one it used).
 */
import { INTERVAL_FOOTNOTE } from "../_lib/format";

export function IntervalNote() {
  return (
    <p className="text-[11.5px] text-zinc-500" data-testid="interval-note">
      {INTERVAL_FOOTNOTE}
    </p>
  );
}
