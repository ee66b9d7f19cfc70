/**
 * The bundled demo task set, created by whoever serves the demo sites (a runner worker, the CLI's run command), with
 * start URLs on the port they are served on. Kept apart from ./demo-scripts.ts: it stores tasks the way the importer
 * does, and the web server, which only reads the demo scripts, should not bundle the importers.
 */
import { withTransaction, type Db } from "../../../db/database";
import { ensureTask, ensureTaskSet } from "../../../db/repositories/catalog";
import { findTaskSetByName } from "../../../db/repositories/live/runs";
import { DEMO_TASKS, DEMO_TASK_SET, demoTask } from "../../demo-sites/demo-trajectories";
import { taskValues } from "../imports";

/**
 * Makes sure the demo task set exists with start URLs on `baseUrl` (the demo data, when loaded, already created it
 * on the default port; existing tasks are left as they are). Returns the task set id.
 */
export async function ensureDemoTaskSet(db: Db, baseUrl: string): Promise<number> {
  const existing = await findTaskSetByName(db, DEMO_TASK_SET.name);
  const setId = existing?.id ?? (await ensureTaskSet(db, DEMO_TASK_SET));
  await withTransaction(db, async () => {
    for (const def of DEMO_TASKS) {
      const t = demoTask(def, baseUrl);
      await ensureTask(
        db,
        setId,
        taskValues({
          taskSet: DEMO_TASK_SET,
          externalId: t.externalId,
          site: t.site ?? null,
          intent: t.intent,
          startUrl: t.startUrl ?? null,
          inputImages: [],
          referenceAnswers: t.referenceAnswers ?? [],
          evaluatorConfig: null,
          difficulty: null,
          tags: t.tags ?? [],
          extra: null,
        }),
      );
    }
  });
  return setId;
}
