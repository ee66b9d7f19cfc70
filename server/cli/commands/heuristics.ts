/**
 * `npm run cli -- heuristics`: the free heuristic evaluators (loop, grounding mismatch, answer not grounded, no
 * answer) over stored trajectories; their verdicts appear in the agreement views next to the judges'.
 */
import { getAppContext } from "../../context";
import { HEURISTIC_EVALUATORS } from "../../domain/evaluation/heuristics/index";
import { evaluateHeuristicVerdicts } from "../../services/evaluation";
import { flagBool, parseArgs } from "../args";
import { createProgressBar } from "../progress";
import type { CliCommand } from "../types";
import { selection } from "./judge";

export const heuristicsCommand: CliCommand = {
  name: "heuristics",
  summary: "heuristic verdicts (loop, grounding, answer not grounded, no answer) for stored trajectories",
  usage:
    "npm run cli -- heuristics (--run ID | --ids 1,2 | --all) [--force] [--json]\n" +
    `  Evaluators: ${HEURISTIC_EVALUATORS.map((h) => h.key).join(", ")}. Stored verdicts are kept unless --force.`,
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["run", "ids"], boolFlags: ["all", "force", "json"], noPositionals: true });
    const json = flagBool(args, "json");
    const ctx = getAppContext(io.env);
    const { ids } = await selection(args, ctx.db);
    const bar = createProgressBar(io, "Heuristics", { enabled: !json });
    const started = Date.now();
    let report;
    try {
      report = await evaluateHeuristicVerdicts(
        { db: ctx.db, store: ctx.store },
        { trajectoryIds: ids, force: flagBool(args, "force"), onProgress: (d, t) => bar.update(d, t) },
      );
    } finally {
      bar.finish();
    }
    const seconds = Number(((Date.now() - started) / 1000).toFixed(2));
    if (json) io.stdout(JSON.stringify({ ...report, seconds }) + "\n");
    else {
      const lines = [
        `Heuristic verdicts: ${report.evaluated} trajectories evaluated in ${seconds}s, ${report.skippedExisting} already had every verdict` +
          (report.skippedRunning ? `, ${report.skippedRunning} still running (skipped)` : "") +
          (report.missing ? `, ${report.missing} not found` : ""),
        ...HEURISTIC_EVALUATORS.map((h) => {
          const c = report.byEvaluator[h.key]!;
          return `  ${h.key.padEnd(26)} ${c.failure} fired, ${c.success} no evidence, ${c.not_evaluable} not evaluable`;
        }),
        `  screenshots hashed: ${report.screenshotsHashed}` +
          (report.unreadableScreenshots ? ` (${report.unreadableScreenshots} unreadable, compared by bytes only)` : ""),
      ];
      io.stderr(lines.join("\n") + "\n");
    }
    return 0;
  },
};
