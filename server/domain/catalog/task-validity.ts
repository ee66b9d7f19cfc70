/**
 * The task validity ledger's vocabulary and its export: what a researcher can say about a task, and the ledger as
 * CSV or JSON. A task's state is its newest revision; `valid` clears an earlier flag. The statuses and their names
 * are ./task-flag-statuses.ts, which browser code imports without zod and the CSV writer.
 */
import { z } from "zod";
import { formatCsv } from "../csv";
import { TASK_FLAG_STATUSES } from "./task-flag-statuses";

export { TASK_FLAG_LABELS, TASK_FLAG_STATUSES, type TaskFlagStatus } from "./task-flag-statuses";

/** A revision as a researcher writes it. The evidence must be a web link, so it can be opened from the ledger. */
export const taskFlagInputSchema = z
  .object({
    taskId: z.number().int().positive(),
    status: z.enum(TASK_FLAG_STATUSES),
    reason: z.string().trim().min(1, "Say why: a reason is required").max(2000),
    evidenceUrl: z
      .string()
      .trim()
      .max(2000)
      .refine((s) => s === "" || /^https?:\/\/\S+$/i.test(s), "The evidence must be an http(s) link")
      .optional(),
  })
  .strict();
export type TaskFlagInput = z.infer<typeof taskFlagInputSchema>;

export interface LedgerEntry {
  taskSet: string;
  benchmark: string;
  taskId: number;
  externalId: string;
  revision: number;
  status: string;
  reason: string;
  evidenceUrl: string | null;
  by: string;
  at: string;
  current: boolean;
}

const COLUMNS: (keyof LedgerEntry)[] = ["taskSet", "benchmark", "taskId", "externalId", "revision", "status", "reason", "evidenceUrl", "by", "at", "current"];

/** The ledger as CSV, one revision a line, a header naming the fields as the JSON export does. */
export function ledgerCsv(entries: readonly LedgerEntry[]): string {
  return formatCsv([COLUMNS, ...entries.map((e) => COLUMNS.map((c) => (e[c] === null ? "" : String(e[c]))))]);
}
