/**
 * Test data for annotation: trajectories written straight through the repositories (no screenshots needed), and
 * accounts created through the real better-auth path.
 */
import { ensureTask, ensureTaskSet, upsertRun } from "../../db/repositories/catalog";
import { saveTrajectory } from "../../db/repositories/trajectories";
import type { Db } from "../../db/database";
import type { Role } from "../../db/schema/index";
import type { Actor } from "../../server/domain/access/actor";
import type { AppContext } from "../../server/context";
import { createAccount } from "../../server/services/accounts";

export interface SeedOptions {
  benchmark?: string;
  taskSet?: string;
  model?: string;
  agentName?: string;
  steps?: number;
  /** External task ids; default "task-1", "task-2", … */
  taskIds?: string[];
}

/** Creates `n` trajectories (one run, one task each) and returns their ids in creation order. */
export async function seedTrajectories(db: Db, n: number, o: SeedOptions = {}): Promise<number[]> {
  const setId = await ensureTaskSet(db, { name: o.taskSet ?? "Test set", benchmark: o.benchmark ?? "webvoyager" });
  const model = o.model ?? "test-model";
  const runId = await upsertRun(db, {
    runKey: `test:${o.taskSet ?? "Test set"}:${model}:${o.agentName ?? "agent"}`,
    name: `${o.agentName ?? "agent"} run`,
    agentName: o.agentName ?? "agent",
    model,
    sourceSystem: "test",
    config: null,
  });
  const steps = o.steps ?? 4;
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const externalId = o.taskIds?.[i] ?? `task-${i + 1}`;
    const taskId = await ensureTask(db, setId, {
      externalId,
      site: "Example",
      intent: `Do thing ${i + 1}`,
      startUrl: "https://example.test/",
      contentHash: `task-${externalId}`,
    });
    const { id } = await saveTrajectory(db, {
      runId,
      taskId,
      attempt: 0,
      finalAnswer: "done",
      outcome: "answered",
      outcomeDetail: null,
      stepCount: steps,
      sourceFormat: "test",
      sourcePath: null,
      contentHash: `traj-${runId}-${externalId}`,
      steps: Array.from({ length: steps }, (_, s) => ({
        index: s,
        url: `https://example.test/${s}`,
        thought: null,
        actionRaw: s === steps - 1 ? "ANSWER; done" : `Click [${s}]`,
        action: s === steps - 1 ? { type: "answer" as const, value: "done" } : { type: "click" as const, target: String(s) },
      })),
    });
    ids.push(id);
  }
  return ids;
}

/** Creates an account through better-auth and returns it as an Actor. */
export async function makeActor(app: Pick<AppContext, "db" | "config">, name: string, role: Role): Promise<Actor> {
  const { user } = await createAccount(app, {
    email: `${name.toLowerCase().replace(/\W+/g, ".")}@test.example`,
    name,
    role,
    password: "correct-horse-battery",
  });
  return { userId: user.id, name: user.name, role: user.role };
}
