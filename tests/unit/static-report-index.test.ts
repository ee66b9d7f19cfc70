/**
 * The static report's front page (server/domain/trajectories/static-report.ts): the agreement table shows judges that
 * have pairs with the human labels, and names those that have none under it instead of a row of dashes.
 */
import { describe, expect, it } from "vitest";
import { indexHtml, type ReportIndex } from "../../server/domain/trajectories/static-report";

function index(agreement: ReportIndex["agreement"]): string {
  return indexHtml({ title: "T", createdAt: "2026-11-28T00:00:00.000Z", selection: "?run=1", trajectories: [], agreement });
}

/** The agreement table's body rows as their cells' text. */
function rows(html: string): string[][] {
  const table = /<table class="agreement">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html);
  if (!table) return [];
  return [...table[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...r[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1]!));
}

describe("the report's agreement table", () => {
  it("gives a row to each judge with pairs, and names the judges without one beneath it", () => {
    const html = index([
      { evaluator: "Judge A (k=1)", n: 12, agreement: 0.75, kappa: 0.5 },
      { evaluator: "Judge <B>", n: 0, agreement: null, kappa: null },
    ]);
    expect(rows(html)).toEqual([["Judge A (k=1)", "12", "75.0%", "0.500"]]);
    expect(html).toContain("so no agreement figure: Judge &lt;B&gt;.");
  });

  it("says no judge has pairs when none has, and still names them", () => {
    const html = index([{ evaluator: "Judge in result.json", n: 0, agreement: null, kappa: null }]);
    expect(rows(html)).toEqual([]);
    // One sentence, naming the published judges, rather than two saying the same.
    expect(html).toContain("No judge has verdicts on labelled trajectories of this selection: Judge in result.json.");
    expect(html).not.toContain("so no agreement figure");
    expect(index([])).toContain("No judge has verdicts on labelled trajectories of this selection.</p>");
  });

  it("shows no agreement section when it was not asked for", () => {
    expect(index(null)).not.toContain("Agreement with human labels");
  });
});
