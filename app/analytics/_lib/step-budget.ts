/**
 * The step-budget view's model: one line per agent run (or site) of the success rate had every trajectory been
 * stopped after k steps, with its Wilson interval as error bars, and the table beside it (n, successes, final rate,
 * steps per success, mean steps of the successes, the budget where the curve stops rising, seconds per success when
 * the source timed every step, and a success's steps against a person's on the same tasks).
 */
import type { BudgetCurve, VersusHuman } from "@/server/domain/analytics/step-budget";
import { errorDistances, PALETTE, seriesKey, type Datum, type RateChartModel } from "./charts";
import { textCell, type TableModel } from "./table";

/** A curve's figures without its points, and where its last point ends (the rate with no step limit). */
export type StepBudgetRow = Omit<BudgetCurve, "points"> & { rate: number | null; low: number | null; high: number | null };

/** Budgets drawn: every k up to 30, then every fifth, and the last (a long tail stays readable). */
function drawnBudgets(ks: number[]): number[] {
  const last = ks[ks.length - 1];
  return ks.filter((k) => k <= 30 || k % 5 === 0 || k === last);
}

export function prepareStepBudget(curves: BudgetCurve[], by: "run" | "site"): { chart: RateChartModel | null; rows: StepBudgetRow[] } {
  const rows = curves.map(({ points, ...figures }): StepBudgetRow => {
    const end = points[points.length - 1];
    return { ...figures, rate: end?.estimate ?? null, low: end?.low ?? null, high: end?.high ?? null };
  });
  const ks = drawnBudgets(curves[0]?.points.map((p) => p.k) ?? []);
  if (!ks.length) return { chart: null, rows };
  const series = curves.map((c, i) => ({ key: seriesKey(i), label: c.group, color: PALETTE[i % PALETTE.length]! }));
  const data = ks.map((k): Datum => {
    const d: Datum = { label: String(k) };
    curves.forEach((c, i) => {
      const p = c.points.find((q) => q.k === k);
      const key = seriesKey(i);
      d[key] = p?.estimate ?? null;
      d[`${key}_err`] = p ? errorDistances(p.estimate, p.low, p.high) : [0, 0];
      d[`${key}_n`] = p?.n ?? 0;
      d[`${key}_text`] = p ? `${p.successes}/${p.n} within ${k} step${k === 1 ? "" : "s"}` : "";
    });
    return d;
  });
  return { chart: { kind: "lines", x: `Step limit k (${by === "run" ? "per agent run" : "per site"})`, series, data, scale: "proportion" }, rows };
}

const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null) => (v === null ? "–" : v.toFixed(1));

/** Seconds as people read them: 48 s, 3 min 20 s. */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}

function secondsCell(r: StepBudgetRow) {
  if (r.secondsPerSuccess !== null) return textCell(duration(r.secondsPerSuccess), { csv: [String(r.secondsPerSuccess), String(r.timed)] });
  // Untimed trajectories would make the price look cheaper than it was: say how many were timed instead.
  const why = r.successes === 0 ? "–" : r.timed === 0 ? "not timed" : `${r.timed} of ${r.n} timed`;
  return textCell(why, { csv: ["", String(r.timed)] });
}

function versusHumanCell(v: VersusHuman | null) {
  if (!v) return textCell("–", { csv: ["", "", "", ""] });
  return textCell(`×${v.ratio.toFixed(2)} (${v.n})`, {
    title: `${v.n} success${v.n === 1 ? "" : "es"} on tasks with a person's step count: ${num(v.meanAgentSteps)} steps on average against the person's ${num(v.meanHumanSteps)}`,
    csv: [String(v.ratio), String(v.meanAgentSteps), String(v.meanHumanSteps), String(v.n)],
  });
}

/** The curves' table: what the chart's last points say, with the cost of a success. */
export function stepBudgetTable(rows: StepBudgetRow[], by: "run" | "site"): TableModel {
  return {
    name: `step-budget-by-${by}`,
    empty: "No trajectory in scope has a success or failure label.",
    columns: [
      { key: "group", label: by === "run" ? "Agent run" : "Site" },
      { key: "n", label: "Labelled", numeric: true },
      { key: "rate", label: "Success (no limit)", numeric: true, csv: ["rate", "low", "high", "successes"] },
      { key: "perSuccess", label: "Steps / success", numeric: true, title: "Every step spent, failures included, divided by the successes" },
      { key: "mean", label: "Steps of a success", numeric: true, title: "Mean steps of the successes" },
      { key: "saturates", label: "Reaches its rate at k", numeric: true, title: "The smallest limit at which every success fits" },
      {
        key: "seconds",
        label: "Time / success",
        numeric: true,
        title: "Recorded seconds of every trajectory, failures included, divided by the successes; only when the source timed every step",
        csv: ["secondsPerSuccess", "timed"],
      },
      {
        key: "human",
        label: "Vs a person",
        numeric: true,
        title:
          "The successes' steps against the steps a person took on the same tasks (the benchmark's reference length): Σ agent / Σ person, and how many successes had one (the means in the cell's tooltip and the CSV)",
        csv: ["agentToHumanSteps", "meanAgentSteps", "meanHumanSteps", "comparedSuccesses"],
      },
    ],
    rows: rows.map((r) => ({
      key: r.group,
      cells: {
        group: textCell(r.group),
        n: textCell(String(r.n)),
        rate: textCell(`${pct(r.rate)} ${r.low === null ? "" : `[${(r.low * 100).toFixed(1)}, ${(r.high! * 100).toFixed(1)}]`} · ${r.successes}/${r.n}`, {
          csv: [String(r.rate ?? ""), String(r.low ?? ""), String(r.high ?? ""), String(r.successes)],
        }),
        perSuccess: textCell(num(r.stepsPerSuccess)),
        mean: textCell(num(r.meanStepsOfSuccesses)),
        saturates: textCell(r.saturatesAt === null ? "–" : String(r.saturatesAt)),
        seconds: secondsCell(r),
        human: versusHumanCell(r.versusHuman),
      },
    })),
  };
}
