/**
 * A dry run's figures (items, calls, images, kept verdicts, tokens, cost) and a table of calls per row (per k value
 * for a batch, per way of asking for a stress test): shared by the batch form, the stress-test form and the
 * alignment runs. Nothing is sent to produce them.
 */
import type { ComponentProps } from "react";
import { Figure, formatCount } from "../../../_components/ui";

/** What every dry run of a judge answers (a batch's estimate; stress tests and alignment runs reuse it). */
export interface EstimateLike {
  trajectories: number;
  calls: number;
  images: number;
  existing: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

export interface EstimateRow {
  key: string;
  label: string;
  calls: number;
  images: number;
  /** Verdicts already stored and kept; the column is left out when no row has it. */
  existing?: number;
}

export function EstimateFigures({
  estimate: e,
  itemsName = "items",
  testIdPrefix = "est",
  extra = [],
  rows,
  rowHeader = "Way of asking",
  rowsAlways = false,
}: {
  estimate: EstimateLike;
  /** How the items are named ("Items" or "Trajectories"), and their figure's test id. */
  itemsName?: "items" | "trajectories";
  testIdPrefix?: string;
  /** Figures after the common ones. */
  extra?: { label: string; value: string }[];
  rows?: EstimateRow[];
  rowHeader?: string;
  /** Show the rows' table even with one row (a batch's single k). */
  rowsAlways?: boolean;
}) {
  const withKept = rows?.some((r) => r.existing !== undefined) ?? false;
  return (
    <div className="flex flex-col gap-2">
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 sm:grid-cols-4">
        <EstimateFigure label={itemsName === "items" ? "Items" : "Trajectories"} value={formatCount(e.trajectories)} testId={`${testIdPrefix}-${itemsName}`} />
        <EstimateFigure label="Calls" value={formatCount(e.calls)} testId={`${testIdPrefix}-calls`} />
        <EstimateFigure label="Images" value={formatCount(e.images)} testId={`${testIdPrefix}-images`} />
        <EstimateFigure label="Already judged (kept)" value={formatCount(e.existing)} testId={`${testIdPrefix}-existing`} />
        <EstimateFigure label="Input tokens (est.)" value={formatCount(e.inputTokens)} />
        <EstimateFigure label="Output tokens (est.)" value={formatCount(e.outputTokens)} />
        <EstimateFigure
          label="Cost (est.)"
          value={e.costUsd === null ? "no prices set" : `$${e.costUsd.toFixed(e.costUsd < 1 ? 4 : 2)}`}
          testId={`${testIdPrefix}-cost`}
        />
        {extra.map((x) => (
          <EstimateFigure key={x.label} label={x.label} value={x.value} />
        ))}
      </dl>
      {rows && (rows.length > 1 || (rowsAlways && rows.length > 0)) && (
        <table className="table-dense max-w-xl" data-testid={`${testIdPrefix}-ways`}>
          <thead>
            <tr>
              <th>{rowHeader}</th>
              <th className="text-right">Calls</th>
              <th className="text-right">Images</th>
              {withKept && <th className="text-right">Kept</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <td>{r.label}</td>
                <td className="text-right tabular-nums">{formatCount(r.calls)}</td>
                <td className="text-right tabular-nums">{formatCount(r.images)}</td>
                {withKept && <td className="text-right tabular-nums">{formatCount(r.existing ?? 0)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** An estimate's figure stands out a little darker than the page's text. */
function EstimateFigure(props: ComponentProps<typeof Figure>) {
  return <Figure valueClassName="text-zinc-900 tabular-nums" {...props} />;
}
