/**
 * `npm run cli -- dedupe`: trajectories stored more than once by earlier imports become one, keeping every label
 * and verdict (server/services/imports/dedupe.ts). `--dry-run` shows what would be merged and writes nothing.
 */
import { getAppContext } from "../../context";
import { dedupeTrajectories, type DedupeReport } from "../../services/imports";
import { flagBool, parseArgs } from "../args";
import { actorFromArgs } from "../label-args";
import { formatTable } from "../table";
import type { CliCommand } from "../types";

/** Exit 3 when some copies were left because their labels or verdicts clash, as a partial import does. */
export const DEDUPE_EXIT = { ok: 0, someLeft: 3 } as const;

function describe(r: DedupeReport): string {
  const lines: string[] = [];
  const would = r.dryRun ? "would be " : "";
  if (!r.groups.length)
    return `${r.dryRun ? "Dry run: " : ""}no trajectory is stored twice.${r.identitiesComputed ? ` (${r.identitiesComputed} rows from earlier versions got identity hashes.)` : ""}\n`;
  lines.push(
    `${r.dryRun ? "Dry run (nothing written): " : ""}${r.groups.length} trajector${r.groups.length === 1 ? "y is" : "ies are"} stored more than once; ${r.merged} cop${r.merged === 1 ? "y" : "ies"} ${would}merged, ${r.left} left.`,
  );
  lines.push(
    `  moved to the kept trajectories: ${r.moved.labels} labels (${r.moved.items} campaign items, ${r.moved.itemsFolded} folded into the kept one's item), ${r.moved.verdicts} verdicts (${r.moved.verdictsSame} the same as the kept one's); ${r.runsRemoved} run${r.runsRemoved === 1 ? "" : "s"} ${would}removed with ${r.runsRemoved === 1 ? "its" : "their"} last trajectory`,
  );
  const rows: string[][] = [];
  for (const g of r.groups) {
    rows.push(["keep", String(g.kept.id), String(g.kept.runId), g.kept.run, g.kept.source ?? ""]);
    for (const m of g.merged) rows.push([r.dryRun ? "merge" : "merged", String(m.id), String(m.runId), m.run, m.source ?? ""]);
    for (const l of g.left) rows.push(["left", String(l.id), String(l.runId), l.run, `${l.source ?? ""} — ${l.reasons.join("; ")}`]);
  }
  lines.push(
    ...formatTable([{ header: "" }, { header: "id", align: "right" }, { header: "run id", align: "right" }, { header: "run" }, { header: "source" }], rows),
  );
  if (r.left) lines.push(`Copies left keep their labels and verdicts; settle the clash named (withdraw a label, adjudicate) and run dedupe again.`);
  return lines.join("\n") + "\n";
}

export const dedupeCommand: CliCommand = {
  name: "dedupe",
  summary: "merge trajectories stored more than once by earlier imports, keeping every label and verdict (--dry-run)",
  usage: "npm run cli -- dedupe [--dry-run] [--as <admin email>] [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["as"], boolFlags: ["dry-run", "json"], noPositionals: true });
    const app = getAppContext(io.env);
    const report = await dedupeTrajectories(app.db, await actorFromArgs(app, args), { dryRun: flagBool(args, "dry-run") });
    io.stdout(flagBool(args, "json") ? JSON.stringify(report) + "\n" : describe(report));
    return report.left ? DEDUPE_EXIT.someLeft : DEDUPE_EXIT.ok;
  },
};
