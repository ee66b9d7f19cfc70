/**
 * A dry run's figures (calls, images, tokens, cost) with a row per way of asking: shared by the stress-test form
 * and the alignment runs. Nothing is sent to produce them.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { formatCount } from "../../../_components/ui";

type Estimate = inferRouterOutputs<AppRouter>["judge"]["alignment"]["estimateRun"];

export interface EstimateRow {
  key: string;
  label: string;
  calls: number;
  images: number;
  existing: number;
}

export function EstimateFigures({ estimate: e, rows, testIdPrefix = "est" }: { estimate: Estimate; rows?: EstimateRow[]; testIdPrefix?: string }) {
  return (
    <div className="flex flex-col gap-2">
      <dl className="grid grid-cols-2 gap-x-6 gap-y-1 sm:grid-cols-4">
        <Figure label="Items" value={formatCount(e.trajectories)} testId={`${testIdPrefix}-items`} />
        <Figure label="Calls" value={formatCount(e.calls)} testId={`${testIdPrefix}-calls`} />
        <Figure label="Images" value={formatCount(e.images)} />
        <Figure label="Already judged (kept)" value={formatCount(e.existing)} testId={`${testIdPrefix}-existing`} />
        <Figure label="Input tokens (est.)" value={formatCount(e.inputTokens)} />
        <Figure label="Output tokens (est.)" value={formatCount(e.outputTokens)} />
        <Figure
          label="Cost (est.)"
          value={e.costUsd === null ? "no prices set" : `$${e.costUsd.toFixed(e.costUsd < 1 ? 4 : 2)}`}
          testId={`${testIdPrefix}-cost`}
        />
      </dl>
      {rows && rows.length > 1 && (
        <table className="table-dense max-w-xl" data-testid={`${testIdPrefix}-ways`}>
          <thead>
            <tr>
              <th>Way of asking</th>
              <th className="text-right">Calls</th>
              <th className="text-right">Images</th>
              <th className="text-right">Kept</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key}>
                <td>{r.label}</td>
                <td className="text-right tabular-nums">{formatCount(r.calls)}</td>
                <td className="text-right tabular-nums">{formatCount(r.images)}</td>
                <td className="text-right tabular-nums">{formatCount(r.existing)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Figure({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div>
      <dt className="section-title">{label}</dt>
      <dd className="text-zinc-900 tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}
