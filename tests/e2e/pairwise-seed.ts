/**
 * Run by pairwise.spec.ts in a child process (tsx) against the e2e database: `account <host>` creates the spec's own
 * annotator, signed in, after earlier specs made their campaigns (which select every annotator by default), so this
 * spec's pairwise campaign is the only work it is given and no other spec sees it. Prints one JSON object.
 */
import { closeSharedDatabases, getAppContext } from "../../server/context";
import { createSignedInAccount } from "./account-session";

export const COMPARER = { key: "comparer", email: "comparer@e2e.test", name: "Cora Comparer", role: "annotator", password: "e2e-annotator-pass" } as const;

const app = getAppContext();
const [mode, host] = process.argv.slice(2);

try {
  if (mode !== "account") throw new Error(`pairwise-seed: unknown mode ${JSON.stringify(mode)} (expected "account <host>")`);
  process.stdout.write(JSON.stringify({ storageState: await createSignedInAccount(app, COMPARER, host ?? "127.0.0.1") }));
} catch (e) {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
} finally {
  await closeSharedDatabases();
}
