import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the test runner (scripts/test-all.mjs), without type declarations.
import { planE2E, readDurations, specFiles } from "../../scripts/e2e-schedule.mjs";

interface Slot {
  specs: string[];
  postgres: boolean;
  seconds: number;
}
interface Plan {
  slots: Slot[];
  unknown: string[];
}
const plan = planE2E as (specs: string[], durations: object, slots: number, opts?: { postgres?: boolean }) => Plan;
const root = path.resolve(__dirname, "..", "..");

describe("splitting the browser e2e between runs by measured time", () => {
  const durations = {
    runSetupSeconds: 10,
    postgresRunSeconds: 40,
    specs: { "a.spec.ts": 100, "b.spec.ts": 70, "c.spec.ts": 60, "d.spec.ts": 30, "e.spec.ts": 20 },
  };
  const specs = ["a.spec.ts", "b.spec.ts", "c.spec.ts", "d.spec.ts", "e.spec.ts"];

  it("gives the longest specs to the least loaded run, with the PostgreSQL run and one setup per run counted", () => {
    const { slots, unknown } = plan(specs, durations, 2);
    expect(unknown).toEqual([]);
    // a (100) → run 1; b (70) → run 2; c (60) → run 2; the PostgreSQL run (40) → run 1; d (30) → run 2; e (20) → run 1.
    expect(slots).toEqual([
      { specs: ["a.spec.ts", "e.spec.ts"], postgres: true, seconds: 10 + 100 + 40 + 20 },
      { specs: ["b.spec.ts", "c.spec.ts", "d.spec.ts"], postgres: false, seconds: 10 + 70 + 60 + 30 },
    ]);
  });

  it("splits by time where a split by count would not: one long spec against many short ones", () => {
    const skewed = { runSetupSeconds: 0, postgresRunSeconds: 0, specs: { "long.spec.ts": 300, ...Object.fromEntries(specs.map((s) => [s, 50])) } };
    const { slots } = plan(["long.spec.ts", ...specs], skewed, 2, { postgres: false });
    expect(slots.map((s) => s.specs)).toEqual([["long.spec.ts"], specs]);
    expect(slots.map((s) => s.seconds)).toEqual([300, 250]);
  });

  it("runs every spec exactly once, whatever the number of runs", () => {
    for (const n of [1, 2, 3, 4, 7]) {
      const { slots } = plan(specs, durations, n);
      expect(slots).toHaveLength(n);
      expect(slots.flatMap((s) => s.specs).sort()).toEqual(specs);
      expect(slots.filter((s) => s.postgres)).toHaveLength(1);
    }
  });

  it("weighs a spec the table does not know as its slowest spec, and names it", () => {
    const { slots, unknown } = plan([...specs, "new.spec.ts"], durations, 2, { postgres: false });
    expect(unknown).toEqual(["new.spec.ts"]);
    const withNew = slots.find((s) => s.specs.includes("new.spec.ts"))!;
    expect(withNew.specs).not.toContain("a.spec.ts");
    expect(slots.map((s) => s.specs)).toEqual([
      ["a.spec.ts", "b.spec.ts", "e.spec.ts"],
      ["c.spec.ts", "d.spec.ts", "new.spec.ts"],
    ]);
    expect(slots.map((s) => s.seconds)).toEqual([10 + 100 + 70 + 20, 10 + 100 + 60 + 30]);
  });

  it("reads the committed table and finds the spec files as Playwright names them", () => {
    const table = readDurations(root) as { specs: Record<string, number>; runSetupSeconds: number; postgresRunSeconds: number };
    const files = specFiles(root) as string[];
    expect(files).toContain("player.spec.ts");
    expect(files.every((f) => f.endsWith(".spec.ts") && fs.existsSync(path.join(root, "tests", "e2e", f)))).toBe(true);
    // A spec added since the table's last refresh is weighed as the slowest one (above); the figures are real ones.
    expect(Object.keys(table.specs).length).toBeGreaterThan(0);
    expect(Object.values(table.specs).every((s) => s > 0)).toBe(true);
    expect(table.runSetupSeconds).toBeGreaterThan(0);
    expect(table.postgresRunSeconds).toBeGreaterThan(0);
  });
});
