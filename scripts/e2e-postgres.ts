/**
 * The PostgreSQL shard of the browser e2e: the flows teams run on a PostgreSQL deployment (labelling and
 * adjudication, judge batches, imports) in Chromium against the built app, whose database is a throwaway
 * PostgreSQL server (Debian's binaries, as in the other tests; under CI their absence is a failure). The specs are
 * the same as on SQLite: the global setup's imports, the accounts and the web server all reach PostgreSQL through
 * VERDICT_DATABASE_URL. Afterwards the database itself must hold what those flows write (labels, an adjudicated
 * label, finished judge and import jobs), so a run that quietly fell back to SQLite fails. Arguments after the
 * script go to `playwright test` (e.g. a reporter).
 *
 *   node --import tsx scripts/e2e-postgres.ts
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { migratePostgresDatabase } from "../server/services/postgres";
import { postgresSkipReason } from "../tests/helpers/postgres";
import { startPostgres } from "./bench/postgres";

const SPECS = ["tests/e2e/annotation.spec.ts", "tests/e2e/judges.spec.ts", "tests/e2e/import.spec.ts"];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** What the specs leave in the database when they ran on it: each count must be above zero. */
const WRITTEN: [what: string, sql: string][] = [
  ["annotators' labels", "select count(*)::int n from labels"],
  ["adjudicated labels", "select count(*)::int n from consolidated_labels where method = 'adjudicated'"],
  ["judge calls finished as jobs", "select count(*)::int n from jobs where type = 'judge.verdict' and status = 'succeeded'"],
  ["uploads imported as jobs", "select count(*)::int n from jobs where type = 'import.source' and status = 'succeeded'"],
];

/** The flows' traces that are missing from the database at `url`. */
async function missingWrites(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const missing: string[] = [];
    for (const [what, sql] of WRITTEN) {
      const { rows } = await client.query<{ n: number }>(sql);
      if (!(rows[0]!.n > 0)) missing.push(what);
    }
    return missing;
  } finally {
    await client.end();
  }
}

const missing = postgresSkipReason();
if (missing) {
  process.stderr.write(`e2e on PostgreSQL skipped: ${missing}\n`);
  process.exit(0);
}
const server = await startPostgres();
let code = 1;
try {
  const url = await server.createDatabase("verdict_e2e");
  // As an operator would with `npm run cli -- migrate`, in this process rather than a second one.
  await migratePostgresDatabase(url);
  const env = {
    ...process.env,
    VERDICT_DATABASE_URL: url,
    // Its own results folder: Playwright empties the one it writes to.
    VERDICT_E2E_OUTPUT: path.join(root, "test-results", "e2e-postgres"),
  };
  const run = spawnSync(
    path.join(root, "node_modules", ".bin", "playwright"),
    ["test", "--config", "tests/playwright.config.ts", ...SPECS, ...process.argv.slice(2)],
    { cwd: root, env, stdio: "inherit" },
  );
  code = run.status ?? 1;
  if (code === 0) {
    const absent = await missingWrites(url);
    if (absent.length > 0) {
      process.stderr.write(
        `e2e on PostgreSQL: Playwright reported no failure, but the PostgreSQL database holds no ${absent.join(", no ")}: the app did not run on it\n`,
      );
      code = 1;
    }
  }
} finally {
  await server.stop();
}
process.exit(code);
