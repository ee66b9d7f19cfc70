/**
 * `demo`: records the demo trajectories on the bundled demo sites with real Chromium and imports them.
 * `demo-sites`: serves the demo sites until interrupted, for trying them in a browser or pointing the runner at them.
 */
import { demoSitesPort } from "../../config";
import { describeDatabase, getAppContext } from "../../context";
import { DEMO_SITES, DEMO_SITES_DEFAULT_PORT, startDemoSites } from "../../demo-sites/server";
import { DEMO_ACCOUNTS, seedDemoAccounts } from "../../services/accounts";
import { demoRunKeys, generateDemoData } from "../../services/demo-data";
import { UsageError, flagBool, flagString, parseArgs } from "../args";
import { createProgressBar } from "../progress";
import type { CliCommand, CliIO } from "../types";

/** --port when given, else VERDICT_DEMO_PORT as the configuration reads it (4517 unless set). */
function portFrom(value: string | undefined, io: CliIO): number {
  if (value === undefined || value === "") {
    const configured = demoSitesPort(io.env);
    if (configured === null) throw new UsageError("VERDICT_DEMO_PORT is off, and this command serves the demo sites: pass --port N");
    return configured;
  }
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${value}"`);
  }
  return port;
}

export const demoCommand: CliCommand = {
  name: "demo",
  summary: "record the demo trajectories on the bundled demo sites (real Chromium) and import them",
  usage: "npm run cli -- demo [--force] [--port N] [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["port"], boolFlags: ["json", "force"], noPositionals: true });
    const port = portFrom(flagString(args, "port"), io);
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    const bar = createProgressBar(io, "Recording demo");
    const started = Date.now();
    let report;
    try {
      report = await generateDemoData(ctx, {
        force: flagBool(args, "force"),
        port,
        onProgress: (done, total, label) => bar.update(done, total, label, true),
      });
    } finally {
      bar.finish();
    }
    // Accounts to try the labelling workflow with (idempotent; listed in docs/guide/getting-started.md, "Accounts").
    const accounts = await seedDemoAccounts(ctx, { runKeys: demoRunKeys() });
    const summary = {
      skipped: report.skipped,
      bundleDir: report.bundleDir,
      runs: report.runs,
      trajectories: report.trajectories,
      steps: report.steps,
      created: report.import?.created ?? 0,
      updated: report.import?.updated ?? 0,
      unchanged: report.import?.unchanged ?? 0,
      screenshotsAdded: report.import?.screenshotsAdded ?? 0,
      ruleVerdicts: report.rules ? report.rules.byVerdict : null,
      accountsCreated: accounts.created,
      demoCampaignId: accounts.campaign?.id ?? null,
    };
    if (json) io.stdout(JSON.stringify(summary) + "\n");
    if (accounts.created.length) {
      io.stderr(`Demo accounts: ${DEMO_ACCOUNTS.map((a) => `${a.email} / ${a.password} (${a.role})`).join(", ")}\n`);
    }
    if (report.skipped) {
      io.stderr(`Demo data is already in ${describeDatabase(ctx.config)} (runs ${report.runs.join(", ")}); nothing to do. Pass --force to record it again.\n`);
      return 0;
    }
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    io.stderr(
      [
        `Recorded ${summary.trajectories} demo trajectories (${summary.steps} steps) in ${secs}s`,
        `  bundle: ${report.bundleDir}`,
        `  imported: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged; ${summary.screenshotsAdded} screenshots added`,
        ...(report.rules
          ? [
              `  rule checks (string_match): ${report.rules.byVerdict.success} success, ${report.rules.byVerdict.failure} failure, ${report.rules.byVerdict.not_evaluable} not evaluable`,
            ]
          : []),
      ].join("\n") + "\n",
    );
    return 0;
  },
};

export const demoSitesCommand: CliCommand = {
  name: "demo-sites",
  summary: "serve the bundled demo sites on 127.0.0.1 until interrupted",
  usage: `npm run cli -- demo-sites [--port N]   (default ${DEMO_SITES_DEFAULT_PORT}; 0 picks a free port)`,
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["port"], boolFlags: [], noPositionals: true });
    const server = await startDemoSites({ port: portFrom(flagString(args, "port"), io) });
    io.stderr(`Demo sites at ${server.baseUrl}/ (Ctrl-C to stop)\n`);
    for (const s of DEMO_SITES) io.stderr(`  ${(server.baseUrl + s.path).padEnd(34)} ${s.name}: ${s.description}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        resolve();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    await server.close();
    io.stderr("Demo sites stopped.\n");
    return 0;
  },
};
