/**
 * `npm run cli -- agreement csv …`: inter-rater agreement straight from a CSV of ratings (one row = one rater's
 * label of one item); `npm run cli -- agreement judges …`: every evaluator's agreement with a campaign's human
 * reference (consolidated, majority, one annotator), optionally per group of a split; and
 * `npm run cli -- agreement-vectors …`: the reference test vectors in the checker's format.
 * The statistics live in server/domain/agreement and server/services/analytics; this module reads files and prints.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs, flagBool, flagString, UsageError, userPath } from "../args";
import { formatTable } from "../table";
import type { CliCommand, CliIO } from "../types";
import { parseCsvTable } from "../../domain/csv";
import { analyzeRatings, DEFAULT_MIN_SHARED_ITEMS, type RatingsAgreementReport } from "../../domain/agreement/ratings";
import { describeInterval, type CoefficientInterval } from "../../domain/agreement/interval";
import { AgreementInputError } from "../../domain/agreement/labels";
import { parseWhere, readRatingTable, type RatingTableRead } from "../../domain/agreement/rating-table";
import { formatReferenceSpec, parseReferenceSpec, type ReferenceSpec } from "../../domain/analytics/reference";
import { getAppContext } from "../../context";
import { ValidationError } from "../../errors";
import { judgeAgreementList, type AgreementStats } from "../../services/analytics";
import { computeVectorCase, vectorCases, type VectorResult } from "../../domain/agreement/vectors";

const CSV_USAGE =
  "npm run cli -- agreement csv <file> [--item <col>[,<col>…] --rater <col> --label <col>] [--where COL=VALUE]… [--json] [--delimiter <char>] [--min-shared <n>]";
const JUDGES_USAGE =
  "npm run cli -- agreement judges --campaign ID [--reference consolidated|majority|annotator:NAME] [--by FIELD] [--unparseable exclude|failure] [--json]";
const VECTORS_USAGE = "npm run cli -- agreement-vectors <vectors.json> --out <results.json> [--json]";

function readUtf8(file: string): string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === "ENOENT" ? `${file}: no such file` : `${file}: cannot read (${(e as Error).message})`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error(`${file}: not valid UTF-8 text`);
  }
}

function fmt(value: number | null, digits = 3): string {
  return value === null ? "undefined" : value.toFixed(digits);
}

function pct(value: number | null): string {
  return value === null ? "undefined" : `${(value * 100).toFixed(1)}%`;
}

/** An interval's JSON fields under `prefix`: bounds, method, and the note when there is one. */
function intervalJson(prefix: string, interval: CoefficientInterval): Record<string, unknown> {
  const out: Record<string, unknown> = { [`${prefix}ci_low`]: interval.low, [`${prefix}ci_high`]: interval.high, [`${prefix}ci_method`]: interval.method };
  if (interval.note) out[`${prefix}ci_note`] = interval.note;
  return out;
}

/** An interval as one short text: its bounds, or why it has none. */
function intervalText(interval: CoefficientInterval): string {
  return interval.method === null ? (interval.note ?? "no interval") : `[${fmt(interval.low)}, ${fmt(interval.high)}]`;
}

function reportJson(read: RatingTableRead, report: RatingsAgreementReport): Record<string, unknown> {
  const out: Record<string, unknown> = {
    layout: read.layout,
    columns: read.columns,
    rows: read.rows,
    rows_filtered_out: read.filteredOut,
    rows_left_out: read.leftOut,
    items: report.items,
    raters: report.raters,
    ratings: report.ratings,
    pairable_items: report.pairableItems,
    krippendorff_alpha: report.krippendorff.alpha,
  };
  if (report.krippendorff.alpha === null) out.krippendorff_alpha_reason = report.krippendorff.reason;
  Object.assign(out, intervalJson("krippendorff_alpha_", report.krippendorff.interval));
  out.percent_agreement = report.percentAgreement.value;
  if (report.percentAgreement.value === null) out.percent_agreement_reason = report.percentAgreement.reason;
  out.fleiss_kappa = report.fleiss.kappa;
  if (report.fleiss.kappa === null) out.fleiss_kappa_reason = report.fleiss.reason;
  Object.assign(out, intervalJson("fleiss_kappa_", report.fleiss.interval));
  out.min_shared_items = report.minSharedItems;
  out.pairwise = report.pairwise.map((p) => {
    const entry: Record<string, unknown> = {
      rater_a: p.raterA,
      rater_b: p.raterB,
      shared_items: p.sharedItems,
      kappa: p.kappa,
    };
    if (p.kappa === null) entry.kappa_reason = p.reason;
    entry.std_kappa = p.stdKappa;
    Object.assign(entry, intervalJson("", p.interval));
    entry.percent_agreement = p.percentAgreement;
    return entry;
  });
  return out;
}

function printReport(io: CliIO, file: string, read: RatingTableRead, report: RatingsAgreementReport): void {
  const lines: string[] = [];
  if (read.layout === "verdict-export")
    lines.push(`${file}: a Verdict label export; the ratings are the annotators' verdicts (item_id, annotator_name, verdict)`);
  if (read.filteredOut) lines.push(`  ${read.filteredOut} of ${read.rows} rows left out by --where`);
  for (const l of read.leftOut) lines.push(`  left out: ${l.rows} ${l.reason}`);
  lines.push(`${file}: ${report.ratings} ratings of ${report.items} items by ${report.raters} raters; ${report.pairableItems} items have ≥ 2 ratings`);
  lines.push("");
  const row = (name: string, value: string, note?: string | null) => lines.push(`  ${name.padEnd(34)} ${value}${note ? `   (${note})` : ""}`);
  const coefficient = (value: number | null, interval: CoefficientInterval) => (value === null ? fmt(null) : `${fmt(value)} ${intervalText(interval)}`);
  row("Krippendorff's α (nominal)", coefficient(report.krippendorff.alpha, report.krippendorff.interval), report.krippendorff.reason);
  row("Mean pairwise percent agreement", pct(report.percentAgreement.value), report.percentAgreement.reason);
  row("Fleiss' κ", coefficient(report.fleiss.kappa, report.fleiss.interval), report.fleiss.reason);
  const methods = [report.krippendorff, report.fleiss].filter((c) => c.interval.method !== null).map((c) => c.interval);
  if (methods.length) lines.push(`  (${describeInterval(methods[0]!)})`);
  lines.push("");
  if (report.pairwise.length === 0) {
    lines.push(`No rater pair shares ${report.minSharedItems} or more items, so there is no pairwise Cohen's κ.`);
  } else {
    lines.push(`Cohen's κ per rater pair (pairs sharing ≥ ${report.minSharedItems} items):`);
    lines.push(
      ...formatTable(
        [
          { header: "rater A" },
          { header: "rater B" },
          { header: "shared", align: "right" },
          { header: "agree", align: "right" },
          { header: "κ", align: "right" },
          { header: "95% CI" },
        ],
        report.pairwise.map((p) => [
          p.raterA,
          p.raterB,
          String(p.sharedItems),
          pct(p.percentAgreement),
          fmt(p.kappa),
          p.kappa === null ? (p.reason ?? "") : intervalText(p.interval),
        ]),
      ),
    );
    if (report.raters <= 12) {
      // The same numbers as a matrix, which makes an outlying rater easy to spot.
      const byPair = new Map(report.pairwise.map((p) => [`${p.raterA}\u0000${p.raterB}`, p.kappa]));
      const cell = (a: string, b: string) => {
        if (a === b) return "—";
        const v = byPair.has(`${a}\u0000${b}`) ? byPair.get(`${a}\u0000${b}`) : byPair.get(`${b}\u0000${a}`);
        return v === undefined ? "·" : fmt(v);
      };
      lines.push("");
      lines.push(
        ...formatTable(
          [{ header: "" }, ...report.raterNames.map((n) => ({ header: n, align: "right" as const }))],
          report.raterNames.map((a) => [a, ...report.raterNames.map((b) => cell(a, b))]),
        ),
      );
      lines.push(`  (· = fewer than ${report.minSharedItems} shared items)`);
    }
  }
  io.stdout(lines.join("\n") + "\n");
}

async function runCsv(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valueFlags: ["item", "rater", "label", "delimiter", "min-shared", "where"], boolFlags: ["json"] });
  const [file, ...extra] = args.positionals;
  if (!file) throw new UsageError("missing the CSV file");
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  const itemSpec = flagString(args, "item");
  const raterSpec = flagString(args, "rater");
  const labelSpec = flagString(args, "label");
  const named = [itemSpec, raterSpec, labelSpec].filter((v) => v !== undefined).length;
  if (named > 0 && named < 3) {
    throw new UsageError(
      `--item, --rater and --label go together (missing ${[itemSpec === undefined && "--item", raterSpec === undefined && "--rater", labelSpec === undefined && "--label"].filter(Boolean).join(", ")}); without any of them the file must be a Verdict label export`,
    );
  }
  const delimiter = flagString(args, "delimiter") ?? ",";
  if (delimiter.length !== 1) throw new UsageError(`--delimiter must be a single character, got ${JSON.stringify(delimiter)}`);
  const minSharedText = flagString(args, "min-shared");
  const minShared = minSharedText === undefined ? DEFAULT_MIN_SHARED_ITEMS : Number(minSharedText);
  if (!Number.isInteger(minShared) || minShared < 1) throw new UsageError(`--min-shared must be a positive integer, got ${JSON.stringify(minSharedText)}`);

  const name = path.basename(file);
  const table = parseCsvTable(readUtf8(userPath(io, file)), { delimiter, source: file });
  let read: RatingTableRead;
  try {
    const where = (args.repeated.get("where") ?? []).map(parseWhere);
    // A name that is itself a header column wins over splitting --item at commas.
    const columns =
      itemSpec !== undefined ? { item: table.header.includes(itemSpec) ? [itemSpec] : itemSpec.split(","), rater: raterSpec!, label: labelSpec! } : undefined;
    read = readRatingTable(table, { file: name, columns, where, rolePrefix: "--" });
  } catch (e) {
    if (e instanceof AgreementInputError) throw new UsageError(e.message);
    throw e;
  }
  if (read.records.length === 0) {
    const why = [read.filteredOut ? `${read.filteredOut} left out by --where` : "", ...read.leftOut.map((l) => `${l.rows} ${l.reason}`)]
      .filter(Boolean)
      .join("; ");
    throw new Error(`${file}: no rating rows${why ? ` (${why})` : " after the header"}`);
  }
  const report = analyzeRatings(read.records, { minSharedItems: minShared });
  if (flagBool(args, "json")) io.stdout(JSON.stringify(reportJson(read, report)) + "\n");
  else printReport(io, name, read, report);
  return 0;
}

/** One evaluator's (or one group's) figures as the JSON reports them. */
function statsJson(s: AgreementStats): Record<string, unknown> {
  const out: Record<string, unknown> = { n: s.n, agreement: s.agreement, kappa: s.kappa.kappa };
  if (s.kappa.kappa === null) out.kappa_reason = s.kappa.reason;
  Object.assign(out, intervalJson("", s.kappa.interval));
  out.false_success = s.falseSuccess;
  out.false_failure = s.falseFailure;
  out.unparseable = s.unparseable;
  out.not_evaluable = s.notEvaluable;
  out.reference_tie = s.tieReference;
  out.reference_unsure = s.unsureReference;
  out.no_reference = s.noReference;
  return out;
}

async function runJudges(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, { valueFlags: ["campaign", "reference", "by", "unparseable"], boolFlags: ["json"], noPositionals: true });
  const campaignText = flagString(args, "campaign");
  if (campaignText === undefined) throw new UsageError("--campaign ID is required: the campaign whose labels are the human reference");
  if (!/^\d{1,9}$/.test(campaignText) || Number(campaignText) < 1)
    throw new UsageError(`--campaign must be a campaign id, got ${JSON.stringify(campaignText)}`);
  const unparseable = flagString(args, "unparseable") ?? "exclude";
  if (unparseable !== "exclude" && unparseable !== "failure")
    throw new UsageError(`--unparseable must be exclude or failure, got ${JSON.stringify(unparseable)}`);
  let reference: ReferenceSpec;
  try {
    reference = parseReferenceSpec(flagString(args, "reference") ?? "consolidated");
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const app = getAppContext(io.env);
  let list;
  try {
    list = await judgeAgreementList(app.db, { scope: {}, campaignId: Number(campaignText), unparseable, reference, by: flagString(args, "by") });
  } catch (e) {
    // A name that is not an annotator, a split key no task has: the user's words, said back with what there is.
    if (e instanceof ValidationError) throw new UsageError(e.message);
    throw e;
  }
  if (flagBool(args, "json")) {
    io.stdout(
      JSON.stringify({
        campaign_id: list.campaignId,
        reference: formatReferenceSpec(list.reference.spec),
        reference_description: list.reference.description,
        reference_labels: list.reference.labels,
        reference_ties: list.reference.ties,
        reference_unsure: list.reference.unsure,
        unparseable: list.unparseable,
        by: list.split?.by ?? null,
        evaluators: list.judges.map((j) => ({
          key: j.info.identity.key,
          k: j.info.identity.k,
          prompt_version: j.info.identity.pv,
          name: j.info.label,
          kind: j.info.kind,
          ...statsJson(j.stats),
          ...(j.groups ? { groups: j.groups.map((g) => ({ group: g.label, ...statsJson(g.stats) })) } : {}),
        })),
      }) + "\n",
    );
    return 0;
  }
  const lines: string[] = [];
  lines.push(
    `Campaign #${list.campaignId}: against ${list.reference.description}; ${list.reference.labels} trajectories with success or failure${list.reference.ties ? `, ${list.reference.ties} tied majorities counted apart` : ""}${list.reference.unsure ? `, ${list.reference.unsure} unsure` : ""}`,
  );
  if (list.judges.length === 0) lines.push("No evaluator has verdicts on these trajectories.");
  const rows: string[][] = [];
  const push = (name: string, s: AgreementStats) =>
    rows.push([name, String(s.n), pct(s.agreement), fmt(s.kappa.kappa), s.kappa.kappa === null ? (s.kappa.reason ?? "") : intervalText(s.kappa.interval)]);
  for (const j of list.judges) {
    push(j.info.label, j.stats);
    for (const g of j.groups ?? []) push(`  ${list.split!.title} = ${g.label}`, g.stats);
  }
  if (rows.length) {
    lines.push(
      ...formatTable(
        [{ header: "evaluator" }, { header: "n", align: "right" }, { header: "agree", align: "right" }, { header: "κ", align: "right" }, { header: "95% CI" }],
        rows,
      ),
    );
  }
  io.stdout(lines.join("\n") + "\n");
  return 0;
}

export const agreementCommand: CliCommand = {
  name: "agreement",
  summary: "Agreement: inter-rater (Krippendorff's α, Fleiss' κ, pairwise Cohen's κ) from a CSV of ratings, or judges against a campaign's human reference",
  usage: `${CSV_USAGE}\n       ${JUDGES_USAGE}`,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    if (sub === "csv") return runCsv(rest, io);
    if (sub === "judges") return runJudges(rest, io);
    throw new UsageError(
      sub
        ? `unknown agreement source ${JSON.stringify(sub)} (csv or judges)`
        : "missing the source: agreement csv <file> … or agreement judges --campaign ID …",
    );
  },
};

export const agreementVectorsCommand: CliCommand = {
  name: "agreement-vectors",
  summary: "Compute every case of an agreement test-vectors file into a results file for check_vectors.py",
  usage: VECTORS_USAGE,
  async run(argv, io) {
    const args = parseArgs(argv, { valueFlags: ["out"], boolFlags: ["json"] });
    const [file, ...extra] = args.positionals;
    if (!file) throw new UsageError("missing the vectors file");
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
    const outFlag = flagString(args, "out");
    if (!outFlag) throw new UsageError("--out <results.json> is required");
    const out = userPath(io, outFlag);

    let parsed: unknown;
    try {
      parsed = JSON.parse(readUtf8(userPath(io, file)));
    } catch (e) {
      throw new Error(e instanceof SyntaxError ? `${file}: not valid JSON (${e.message})` : (e as Error).message);
    }
    const cases = vectorCases(parsed, file);
    const results: Record<string, VectorResult> = {};
    const tally = { values: 0, undefined: 0, errors: 0 };
    const started = performance.now();
    for (const c of cases) {
      let r: VectorResult;
      try {
        r = computeVectorCase(c);
      } catch (e) {
        throw new Error(`case ${JSON.stringify(c.name)}: ${(e as Error).message}`);
      }
      results[c.name] = r;
      if (r !== null && typeof r === "object" && "error" in r) tally.errors++;
      else if (r === null || (typeof r === "object" && r.value === null)) tally.undefined++;
      else tally.values++;
    }
    const ms = performance.now() - started;
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(results, null, 1) + "\n");
    const summary = { cases: cases.length, ...tally, out, ms: Math.round(ms * 10) / 10 };
    if (flagBool(args, "json")) io.stdout(JSON.stringify(summary) + "\n");
    else
      io.stderr(
        `${file}: ${cases.length} cases (${tally.values} values, ${tally.undefined} undefined, ${tally.errors} rejected as invalid) in ${summary.ms} ms → ${out}\n`,
      );
    return 0;
  },
};
