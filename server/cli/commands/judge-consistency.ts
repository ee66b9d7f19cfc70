/**
 * `npm run cli -- judge-consistency`: how consistent each judge is with itself, for judges stored with several runs
 * over the same trajectories (several auto-evaluation logs of one judge): flip rate, κ per pair of runs, Fleiss κ.
 */
import { getAppContext } from "../../context";
import { judgeRunConsistencies } from "../../services/analytics";
import { flagBool, flagString, parseArgs } from "../args";
import { formatTable } from "../table";
import type { CliCommand } from "../types";

const num = (x: number | null) => (x === null ? "undefined" : x.toFixed(3));
const pct = (x: number | null) => (x === null ? "—" : `${(100 * x).toFixed(1)}%`);

export const judgeConsistencyCommand: CliCommand = {
  name: "judge-consistency",
  summary: "run-to-run consistency of judges stored with several runs (flip rate, κ between runs)",
  usage: "npm run cli -- judge-consistency [--evaluator KEY] [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["evaluator"], boolFlags: ["json"], noPositionals: true });
    const ctx = getAppContext(io.env);
    const views = await judgeRunConsistencies(ctx.db, flagString(args, "evaluator"));
    if (flagBool(args, "json")) {
      io.stdout(JSON.stringify({ judges: views }) + "\n");
      return 0;
    }
    if (!views.length) {
      io.stdout(
        "No judge has several runs stored. Import several auto-evaluation logs of one judge (gpt4o_run1.log, gpt4o_run2.log, …) with the trajectories they judged.\n",
      );
      return 0;
    }
    const lines: string[] = [];
    for (const v of views) {
      lines.push(`${v.evaluatorName}${v.k ? ` (k = ${v.k})` : ""}: ${v.runs.length} runs, ${v.items} trajectories judged success or failure by all`);
      lines.push(
        `  flip rate ${pct(v.flipRate)} (${v.flips} of ${v.items}); Fleiss κ ${num(v.fleissKappa)}${v.fleissKappa === null && v.fleissReason ? ` (${v.fleissReason})` : ""}${v.leftOut ? `; ${v.leftOut} left out (not judged success or failure by every run)` : ""}`,
      );
      lines.push(
        ...formatTable(
          [
            { header: "run A" },
            { header: "run B" },
            { header: "n", align: "right" },
            { header: "flips", align: "right" },
            { header: "κ", align: "right" },
            { header: "95% CI" },
          ],
          v.pairs.map((p) => [
            p.a.replace(/^run:/, ""),
            p.b.replace(/^run:/, ""),
            String(p.n),
            String(p.flips),
            num(p.kappa),
            p.kappa === null ? (p.kappaReason ?? "") : p.ciLow === null ? (p.intervalNote ?? "no interval") : `[${num(p.ciLow)}, ${num(p.ciHigh)}]`,
          ]),
        ),
      );
      lines.push("");
    }
    io.stdout(lines.join("\n"));
    return 0;
  },
};
