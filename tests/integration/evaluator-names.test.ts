/**
 * The evaluator names the analytics show beside each evaluator key: one per key that has verdicts, the name its first
 * verdict (lowest id) carries, the same on both engines whatever their collation (keys differing only in case, in
 * accents or in trailing spaces are different keys).
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { evaluatorNames } from "../../db/repositories/analytics";
import { upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";
import { seedLongTrajectory } from "../helpers/long-trajectory";

describeEachBackend("evaluator names of the analytics", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend, "verdict-evaluator-names-");
  });
  afterEach(async () => ctx?.cleanup());

  it("gives every key with verdicts the name of its first verdict, keys apart however alike", async () => {
    expect(await evaluatorNames(ctx.db)).toEqual(new Map());
    const trajectories = [];
    for (let i = 0; i < 3; i++) trajectories.push(await seedLongTrajectory(ctx.db, { steps: 2, externalTaskId: `names-${i}`, thoughtBytes: 4, marks: 1 }));
    // [trajectory, key, name], written in this order: the first verdict of each key decides its name.
    const writes: [number, string, string][] = [
      [0, "judge:b", "Judge B"],
      [0, "judge:A", "Upper A"],
      [0, "judge:a", "Lower a"],
      [1, "judge:b", "Judge B renamed"],
      [0, "judge:é", "Accented"],
      [0, "judge:e", "Plain e"],
      [0, "judge:a ", "Trailing space"],
      [2, "judge:A", "Upper A renamed"],
      [0, "rule:z", "Rule z"],
    ];
    for (const [t, key, name] of writes) {
      await upsertVerdict(ctx.db, {
        trajectoryId: trajectories[t]!,
        kind: "judge",
        origin: "verdict",
        evaluatorKey: key,
        evaluatorName: name,
        k: "1",
        promptVersion: "v1",
        verdict: "success",
      });
    }
    const expected = new Map<string, string>();
    for (const [, key, name] of writes) if (!expected.has(key)) expected.set(key, name);
    const names = await evaluatorNames(ctx.db);
    expect(new Map([...names].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(new Map([...expected].sort(([a], [b]) => (a < b ? -1 : 1))));
  });
});
