/**
 * A table model (app/analytics/_lib/table.ts) as a dense table. Cells with a link open the trajectories behind
 * them. No hooks, so server and client components can both render it.
 */
import Link from "next/link";
import type { Cell, TableModel, Tone } from "../_lib/table";

const TONE: Record<Tone, string> = {
  muted: "text-zinc-400",
  good: "text-emerald-700",
  warn: "text-amber-700",
  bad: "text-rose-700",
  strong: "font-semibold text-zinc-900",
};

function CellContent({ cell }: { cell: Cell }) {
  const cls = `${cell.tone ? TONE[cell.tone] : ""} ${cell.mono ? "font-mono text-[11.5px]" : ""}`;
  if (cell.href) {
    return (
      <Link href={cell.href} className={`link ${cls}`} title={cell.title ?? "List these trajectories"}>
        {cell.text}
      </Link>
    );
  }
  return (
    <span className={cls} title={cell.title}>
      {cell.text}
    </span>
  );
}

/** Headers and card titles are upper-cased; κ and α must stay lower-case (Κ and Α read as K and A). */
export function HeaderText({ text }: { text: string }) {
  return (
    <>
      {text.split(/([κα])/).map((part, i) =>
        i % 2 ? (
          <span key={i} className="normal-case">
            {part}
          </span>
        ) : (
          part
        ),
      )}
    </>
  );
}

export function DataTable({ table, maxHeight }: { table: TableModel; maxHeight?: number }) {
  if (table.rows.length === 0) return <p className="px-4 py-6 text-center text-[12.5px] text-zinc-500">{table.empty ?? "Nothing to show."}</p>;
  return (
    <div className="overflow-auto" style={maxHeight ? { maxHeight } : undefined}>
      <table className="table-dense" data-table={table.name}>
        <thead>
          <tr>
            {table.columns.map((c) => (
              <th key={c.key} className={c.numeric ? "text-right" : undefined} title={c.title}>
                <HeaderText text={c.label} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r) => (
            <tr key={r.key} data-row={r.key}>
              {table.columns.map((c) => {
                const cell = r.cells[c.key];
                return (
                  <td key={c.key} data-col={c.key} className={c.numeric ? "text-right whitespace-nowrap tabular-nums" : undefined}>
                    {cell ? <CellContent cell={cell} /> : null}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
