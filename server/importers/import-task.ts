import type { ImportTask } from "./types";

/** What a source must say about a task; the rest of ImportTask may be left out. */
export type TaskEssentials = Pick<ImportTask, "taskSet" | "externalId" | "site" | "intent" | "startUrl"> & Partial<ImportTask>;

/**
 * A task as an importer read it, with what the source did not say left empty: no input images, reference answers,
 * evaluator, difficulty, tags or extra fields. Fields keep ImportTask's order.
 */
export function importTask(t: TaskEssentials): ImportTask {
  const task: ImportTask = {
    taskSet: t.taskSet,
    externalId: t.externalId,
    site: t.site,
    intent: t.intent,
    startUrl: t.startUrl,
    inputImages: t.inputImages ?? [],
    referenceAnswers: t.referenceAnswers ?? [],
    evaluatorConfig: t.evaluatorConfig ?? null,
    difficulty: t.difficulty ?? null,
    tags: t.tags ?? [],
    extra: t.extra ?? null,
  };
  if (t.attributes !== undefined) task.attributes = t.attributes;
  if (t.fromTaskFile !== undefined) task.fromTaskFile = t.fromTaskFile;
  return task;
}

/** Online-Mind2Web's task level ("easy", "medium", "hard") as the task's difficulty and a `level:` tag. */
export function mind2webLevel(level: string | null): Pick<ImportTask, "difficulty" | "tags"> {
  return level ? { difficulty: { overall: level, reasoning: null, visual: null }, tags: [`level:${level}`] } : { difficulty: null, tags: [] };
}
