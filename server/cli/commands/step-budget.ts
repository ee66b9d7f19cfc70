import { getAppContext } from "../../context";
import { BUDGET_GROUPINGS, stepBudgets, type BudgetGrouping } from "../../services/analytics";
import { flagBool, flagString, parseArgs } from "../args";
import { formatTable } from "../table";
import type { CliCommand } from "../types";

const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);

export const stepBudgetCommand: CliCommand = {
  name: "step-budget",
  summary: "success had each run stopped after k steps (human labels), per run or site, with Wilson intervals",
  usage: "npm run cli -- step-budget [--by run|site] [--k 5,10,15] [--campaign ID] [--run ID] [--site NAME] [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["by", "k", "campaign", "run", "site"], boolFlags: ["json"] });
    const by = (flagString(args, "by") ?? "run") as BudgetGrouping;
    if (!(BUDGET_GROUPINGS as readonly string[]).includes(by)) {
      io.stderr(`--by: expected ${BUDGET_GROUPINGS.join(" or ")}, got "${by}"\n`);
      return 2;
    }
    const kText = flagString(args, "k");
    const ks = kText?.split(",").map((s) => Number(s.trim()));
    const number = (name: string) => {
      const v = flagString(args, name);
      return v === undefined ? undefined : Number(v);
    };
    const ctx = getAppContext(io.env);
    const result = await stepBudgets(ctx.db, { by, ks, campaignId: number("campaign"), scope: { runId: number("run"), site: flagString(args, "site") } });
    if (flagBool(args, "json")) {
      io.stdout(JSON.stringify(result) + "\n");
      return 0;
    }
    if (!result.curves.length) {
      io.stdout("No trajectories in scope.\n");
      return 0;
    }
    const budgets = ks
      ? result.curves[0]!.points.map((p) => p.k)
      : [...new Set(result.curves.flatMap((c) => c.points.filter((p, i, all) => i === all.length - 1 || p.k % 5 === 0).map((p) => p.k)))].sort((a, b) => a - b);
    const lines = formatTable(
      [
        { header: by },
        { header: "n", align: "right" },
        ...budgets.map((k) => ({ header: `k=${k}`, align: "right" as const })),
        { header: "steps/success", align: "right" },
        { header: "s/success", align: "right" },
        { header: "vs person", align: "right" },
      ],
      result.curves.map((c) => [
        c.group,
        String(c.n),
        ...budgets.map((k) => {
          const p = c.points.find((q) => q.k === k) ?? c.points[c.points.length - 1];
          return p ? `${pct(p.estimate)} [${pct(p.low)}, ${pct(p.high)}]` : "–";
        }),
        c.stepsPerSuccess === null ? "–" : c.stepsPerSuccess.toFixed(1),
        c.secondsPerSuccess === null ? (c.timed < c.n ? `${c.timed}/${c.n} timed` : "–") : c.secondsPerSuccess.toFixed(1),
        c.versusHuman === null ? "–" : `×${c.versusHuman.ratio.toFixed(2)} (${c.versusHuman.n})`,
      ]),
    );
    io.stdout(`Success had each trajectory been stopped after k steps (consolidated human labels; Wilson 95%):\n${lines.join("\n")}\n`);
    return 0;
  },
};
