/**
 * Run by reveal.spec.ts in a child process (tsx) against the e2e database. `seed <success id> <failure id>` gives the
 * two trajectories verdicts from an imported judge (success on the first, failure on the second, each with a
 * rationale and the first and last step as the screenshots it saw); `clean` removes them again, so the specs that
 * run later see the database as the global setup left it. `account <host>` creates the spec's own annotator, signed
 * in, after every earlier spec made its campaigns (which select all annotators by default), so no other campaign
 * gives it blind work on the same tasks. Prints one JSON object.
 */
import { deleteVerdicts, upsertVerdict } from "../../db/repositories/evaluation/verdicts";
import { countSteps } from "../../db/repositories/trajectories";
import { evaluatorId } from "../../server/domain/analytics/measures";
import { getAppContext } from "../../server/context";
import { createSignedInAccount } from "./account-session";
import { runSeedScript } from "./seed-script";

export const REVEAL_JUDGE_KEY = "import:e2e:reveal-judge";
export const REVEAL_JUDGE_NAME = "E2E reveal judge";

const app = getAppContext();
const { db } = app;

export const REVISER = { key: "reviser", email: "reviser@e2e.test", name: "Rex Reviser", role: "annotator", password: "e2e-annotator-pass" } as const;
const [mode, ...args] = process.argv.slice(2);

async function main(): Promise<void> {
  if (mode === "account") {
    process.stdout.write(JSON.stringify({ storageState: await createSignedInAccount(app, REVISER, args[0] ?? "127.0.0.1") }));
    return;
  }
  await deleteVerdicts(db, { evaluatorKey: REVEAL_JUDGE_KEY });
  if (mode === "clean") {
    process.stdout.write(JSON.stringify({ cleaned: true }));
    return;
  }
  const [success, failure] = args.map(Number) as [number, number];
  for (const [id, verdict] of [
    [success, "success"],
    [failure, "failure"],
  ] as const) {
    const steps = await countSteps(db, id);
    await upsertVerdict(db, {
      trajectoryId: id,
      kind: "judge",
      origin: "import",
      evaluatorKey: REVEAL_JUDGE_KEY,
      evaluatorName: REVEAL_JUDGE_NAME,
      verdict,
      rationale:
        verdict === "success"
          ? "The last screenshot shows the requested result; the agent's answer matches it."
          : "The agent stopped before the task was done: the result never appears on screen.",
      stepIndices: steps > 1 ? [0, steps - 1] : [0],
    });
  }
  process.stdout.write(JSON.stringify({ evaluatorId: evaluatorId({ key: REVEAL_JUDGE_KEY, k: "", pv: "" }) }));
}

await runSeedScript(main);
