/**
 * A small labelled study for agreement tests: each trajectory's labels given as a string of S/F (one letter per
 * annotator, in the order of `annotators`), imported as a researcher would import a CSV of labels.
 */
import { importLabelsCsv } from "../../server/services/annotation";
import type { TestContext } from "./context";
import { makeActor } from "./annotation-fixture";

export async function importStudyLabels(
  ctx: TestContext,
  trajectoryIds: number[],
  labels: string[],
  annotators = ["Ann", "Bob", "Cy"],
  categories: Record<string, string> = {},
): Promise<number> {
  const researcher = await makeActor(ctx, "Rhea", "researcher");
  const rows = ["trajectory_id,annotator,verdict,category"];
  // `categories["<item>:<annotator>"]` gives that failure label an error category.
  labels.forEach((l, i) =>
    [...l].forEach((v, a) => rows.push(`${trajectoryIds[i]},${annotators[a]},${v === "S" ? "success" : "failure"},${categories[`${i}:${a}`] ?? ""}`)),
  );
  const report = await importLabelsCsv(ctx.db, researcher, {
    csv: rows.join("\n") + "\n",
    source: "study.csv",
    mapping: { annotator: "annotator", verdict: "verdict", trajectoryId: "trajectory_id", category: "category" },
    campaign: { name: "Study", annotatorsPerItem: annotators.length },
  });
  return report.campaignId!;
}
