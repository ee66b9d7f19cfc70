/**
 * The frame every e2e seed script runs in (they are started as child processes by the specs, on the app's own
 * database): a failure prints its stack and exits 1, so the spec that ran it reports why rather than reading empty
 * output, and the shared database connections are closed either way so the process ends.
 */
import { closeSharedDatabases } from "../../server/context";

export async function runSeedScript(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  } finally {
    await closeSharedDatabases();
  }
}

/**
 * The two commands most seed scripts take: `seed` prints what it made as JSON, `clean` removes it and prints
 * `{"cleaned":true}`; anything else is a usage error (exit 2). `seed` null: its arguments are missing.
 */
export function seedOrClean(
  mode: string | undefined,
  commands: { seed: (() => Promise<unknown>) | null; clean: () => Promise<void>; usage: string },
): Promise<void> {
  return runSeedScript(async () => {
    if (mode === "clean") {
      await commands.clean();
      process.stdout.write(JSON.stringify({ cleaned: true }));
    } else if (mode === "seed" && commands.seed) {
      process.stdout.write(JSON.stringify(await commands.seed()));
    } else {
      process.stderr.write(`usage: ${commands.usage}\n`);
      process.exitCode = 2;
    }
  });
}
