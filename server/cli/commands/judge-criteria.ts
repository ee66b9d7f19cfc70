/**
 * `npm run cli -- judge-criteria`: a key-point or rubric judge's criteria against a labelled campaign: the verdict
 * against the consolidated labels, each kind of criterion ("all met") against them, the process as a whole, the
 * disagreements with the criteria graded not met, and how many of the judge's citations could not be checked.
 */
import { getAppContext } from "../../context";
import { parseK } from "../../domain/evaluation/verdicts";
import { criteriaReport, type CriteriaReport } from "../../services/evaluation";
import { flagBool, flagString, parseArgs, UsageError } from "../args";
import type { CliCommand } from "../types";

const KIND_NAMES = { key_point: "key points", outcome: "outcome criteria", process: "process criteria" } as const;
const num = (x: number | null) => (x === null ? "undefined" : x.toFixed(3));

function measureText(m: CriteriaReport["outcome"]): string {
  const k = m.kappa.kappa === null ? `undefined (${m.kappa.reason})` : num(m.kappa.kappa);
  const rate = (r: { estimate: number | null }) => (r.estimate === null ? "–" : r.estimate.toFixed(3));
  return `κ ${k}, FPR ${rate(m.errors.falsePositive)}, FNR ${rate(m.errors.falseNegative)}; n ${m.n}`;
}

export function criteriaText(r: CriteriaReport): string {
  const lines = [
    `${r.config.name} (${r.config.protocol}, k = ${r.k}) against the consolidated labels of ${r.campaign.name}` +
      (r.leftOut ? ` (${r.leftOut} item(s) without a success or failure label left out)` : "") +
      (r.missing ? `; ${r.missing} labelled item(s) not judged yet` : ""),
    `  outcome (the verdict): ${measureText(r.outcome)}`,
  ];
  for (const k of r.byKind) {
    lines.push(
      `  ${KIND_NAMES[k.kind]}: ${k.met} of ${k.criteria} met${k.unparseable ? `, ${k.unparseable} unreadable` : ""} on ${k.items} item(s); all met vs people: ${measureText(k.againstHuman)}`,
    );
  }
  if (r.process) lines.push(`  process as a whole vs people: ${measureText(r.process)}`);
  lines.push(`  citations: ${r.citations.citations} in ${r.citations.verdicts} verdict(s), ${r.citations.unverifiable} unverifiable`);
  for (const d of r.disagreements) {
    lines.push(
      `  disagreement: trajectory ${d.trajectoryId}: judge ${d.verdict}, people ${d.human}${d.notMet.length ? `; not met: ${d.notMet.map((c) => c.text).join("; ")}` : ""}`,
    );
  }
  return lines.join("\n") + "\n";
}

export const judgeCriteriaCommand: CliCommand = {
  name: "judge-criteria",
  summary: "a key-point or rubric judge's criteria against a campaign's labels, and its unverifiable citations",
  usage: "npm run cli -- judge-criteria --config <name|id> --campaign <name|id> --k <k> [--json]",
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["config", "campaign", "k"], boolFlags: ["json"], noPositionals: true });
    const config = flagString(args, "config");
    const campaign = flagString(args, "campaign");
    const kText = flagString(args, "k");
    if (!config || !campaign || !kText) throw new UsageError("judge-criteria needs --config, --campaign and --k");
    let k;
    try {
      k = parseK(kText);
    } catch (e) {
      throw new UsageError(`--k: ${(e as Error).message}`);
    }
    const report = await criteriaReport(getAppContext(io.env).db, { config, campaign, k });
    if (flagBool(args, "json")) io.stdout(JSON.stringify(report) + "\n");
    else io.stdout(criteriaText(report));
    return 0;
  },
};
