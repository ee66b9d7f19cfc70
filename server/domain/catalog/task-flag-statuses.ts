/**
 * What a researcher can say about a task in the validity ledger, and how each status is named. Zod-free: the
 * player's flag dialog imports it, and the labelling page carries the player, so the ledger's input schema and CSV
 * writer (./task-validity.ts) stay on the server.
 */
export const TASK_FLAG_STATUSES = ["broken", "outdated", "ambiguous", "wrong_reference", "valid"] as const;
export type TaskFlagStatus = (typeof TASK_FLAG_STATUSES)[number];

export const TASK_FLAG_LABELS: Record<TaskFlagStatus, string> = {
  broken: "Broken",
  outdated: "Outdated",
  ambiguous: "Ambiguous",
  wrong_reference: "Wrong reference",
  valid: "Valid (flag cleared)",
};
