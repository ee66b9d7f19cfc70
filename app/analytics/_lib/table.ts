/**
 * Table models: what every analytics table renders and exports. A cell shows `text` and may link to the
 * trajectories behind it; CSV export writes each cell's `csv` values (raw numbers, several per cell when the cell
 * shows a rate with its interval and counts) under the column's `csv` headers.
 */
import { formatCsv } from "@/server/domain/csv";

export type Tone = "muted" | "good" | "warn" | "bad" | "strong";

export interface Cell {
  text: string;
  /** Values for CSV export, one per entry of the column's `csv` headers (default: [text]). */
  csv?: string[];
  href?: string;
  title?: string;
  tone?: Tone;
  mono?: boolean;
}

export interface Column {
  key: string;
  label: string;
  numeric?: boolean;
  title?: string;
  /** CSV headers for this column (default: [label]). */
  csv?: string[];
}

export interface Row {
  key: string;
  cells: Record<string, Cell>;
}

export interface TableModel {
  columns: Column[];
  rows: Row[];
  /** File name of the CSV export, without extension. */
  name: string;
  /** Shown when there are no rows. */
  empty?: string;
}

export function textCell(text: string, extra: Omit<Cell, "text"> = {}): Cell {
  return { text, ...extra };
}

/** A trajectory's id, opening it in the player (with its evaluations beside it, unless `href` says another place). */
export function trajectoryCell(id: number, title = "Open in the player, with the evaluations beside it", href = `/trajectories/${id}?panel=evaluations`): Cell {
  return { text: `#${id}`, href, mono: true, csv: [String(id)], title };
}

/** The columns that name a trajectory: its id, task, site and agent run (cells from `trajectoryCells`). */
export const TRAJECTORY_COLUMNS: readonly Column[] = [
  { key: "id", label: "Trajectory" },
  { key: "task", label: "Task" },
  { key: "site", label: "Site" },
  { key: "run", label: "Run" },
];

export interface TrajectoryNames {
  trajectoryId: number;
  externalTaskId: string;
  intent: string;
  site: string | null;
  runName: string;
}

/** The cells under `TRAJECTORY_COLUMNS`: the id (to the player), the task (its intent on hover), the site and the run. */
export function trajectoryCells(r: TrajectoryNames): Record<"id" | "task" | "site" | "run", Cell> {
  return {
    id: trajectoryCell(r.trajectoryId),
    task: { text: r.externalTaskId, title: r.intent, mono: true },
    site: { text: r.site ?? "–" },
    run: { text: r.runName },
  };
}

/** CSV text of a table: headers from `csv` (or the label), values from each cell's `csv` (or its text). */
export function tableToCsv(t: TableModel): string {
  const header = t.columns.flatMap((c) => c.csv ?? [c.label]);
  const records = t.rows.map((r) =>
    t.columns.flatMap((c) => {
      const width = c.csv?.length ?? 1;
      const cell = r.cells[c.key];
      const values = cell ? (cell.csv ?? [cell.text]) : [];
      return Array.from({ length: width }, (_, i) => values[i] ?? "");
    }),
  );
  return formatCsv([header, ...records]);
}

/** A safe file name from a table name: "judge agreement · k = 3" → "judge-agreement-k-3". */
export function csvFileName(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[^\w\s-]/g, " ")
    .trim()
    .replace(/[\s_-]+/g, "-")
    .toLowerCase();
  return `${slug || "table"}.csv`;
}
