/**
 * Plain-text tables for the CLI. Columns are as wide as their widest cell, so a long rater, task or run name widens
 * its column instead of being cut: people compare names across rows and a cut name can hide which one it is.
 */

export interface TableColumn {
  header: string;
  /** Numbers read best right-aligned; text left-aligned (the default). */
  align?: "left" | "right";
}

/** Width of a cell as a terminal shows it: code points, not UTF-16 units ("κ" and "≥" are one column each). */
export function textWidth(s: string): number {
  return [...s].length;
}

function pad(s: string, width: number, align: "left" | "right"): string {
  const fill = " ".repeat(Math.max(0, width - textWidth(s)));
  return align === "right" ? fill + s : s + fill;
}

/**
 * The table as lines: a header line, then one line per row. Cells are never shortened; the last column is not
 * padded (no trailing spaces). `indent` goes before every line; columns are `gap` spaces apart.
 */
export function formatTable(columns: TableColumn[], rows: string[][], options: { indent?: string; gap?: number; header?: boolean } = {}): string[] {
  const indent = options.indent ?? "  ";
  const gap = " ".repeat(options.gap ?? 2);
  const widths = columns.map((c, i) => Math.max(options.header === false ? 0 : textWidth(c.header), ...rows.map((r) => textWidth(r[i] ?? ""))));
  const line = (cells: string[]) =>
    indent +
    cells
      .map((cell, i) => (i === columns.length - 1 && columns[i]!.align !== "right" ? cell : pad(cell, widths[i]!, columns[i]!.align ?? "left")))
      .join(gap)
      .replace(/\s+$/, "");
  return [...(options.header === false ? [] : [line(columns.map((c) => c.header))]), ...rows.map((r) => line(columns.map((_, i) => r[i] ?? "")))];
}
