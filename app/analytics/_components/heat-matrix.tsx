/**
 * A small matrix (confusion matrix, annotator × annotator κ) as a table with shaded cells; each cell links to the
 * trajectories behind it.
 */
import Link from "next/link";
import type { MatrixModel } from "../_lib/judges";

/**
 * Shade by value, text always near-black: over these tints (at most 63% indigo or rose on white) dark text keeps
 * a contrast above 4.5:1, where white text on the darker cells fell to about 3:1.
 */
function shadeStyle(shade: number, tone?: "agree" | "disagree") {
  const alpha = 0.08 + 0.55 * Math.max(0, Math.min(1, shade));
  const rgb = tone === "disagree" ? "225, 29, 72" : "79, 70, 229";
  return { background: `rgba(${rgb}, ${alpha.toFixed(3)})`, color: "#18181b" };
}

export function HeatMatrix({ model, label }: { model: MatrixModel; label: string }) {
  return (
    <div className="overflow-x-auto">
      <table className="border-separate border-spacing-1 text-[12px]" aria-label={label} data-matrix={label}>
        <thead>
          <tr>
            <th className="px-2 text-left text-2xs font-medium text-zinc-400">
              {model.rowTitle} ↓ · {model.colTitle} →
            </th>
            {model.cols.map((c) => (
              <th key={c.key} className="max-w-32 truncate px-2 text-center text-2xs font-semibold text-zinc-600" title={c.label}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {model.rows.map((r, i) => (
            <tr key={r.key}>
              <th className="max-w-40 truncate px-2 text-left text-2xs font-semibold text-zinc-600" title={r.label}>
                {r.label}
              </th>
              {model.cells[i]!.map((cell, j) => (
                <td key={model.cols[j]!.key} data-cell={`${r.key}|${model.cols[j]!.key}`} className="min-w-20 rounded-md p-0 text-center tabular-nums">
                  {cell === null ? (
                    <span className="block px-2 py-2 text-zinc-500">—</span>
                  ) : cell.href ? (
                    <Link
                      href={cell.href}
                      title={cell.title}
                      className="block rounded-md px-2 py-1.5 hover:ring-2 hover:ring-indigo-300"
                      style={shadeStyle(cell.shade, cell.tone)}
                    >
                      <span className="block font-semibold">{cell.text}</span>
                      {cell.sub && <span className="block text-2xs opacity-80">{cell.sub}</span>}
                    </Link>
                  ) : (
                    <span title={cell.title} className="block rounded-md px-2 py-1.5" style={shadeStyle(cell.shade, cell.tone)}>
                      <span className="block font-semibold">{cell.text}</span>
                      {cell.sub && <span className="block text-2xs opacity-80">{cell.sub}</span>}
                    </span>
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
