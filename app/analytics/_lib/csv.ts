/**
 * The CSV agreement page: previewing an uploaded file, guessing which columns hold the item, the rater and the
 * label, and the report's view models (the same figures `npm run cli -- agreement csv` prints).
 */
import { parseCsvTable } from "@/server/domain/csv";
import type { CsvAgreementResult } from "@/server/services/analytics";
import { fmtCoef, fmtCount, fmtInterval, fmtPercent, intervalTitle } from "./format";
import type { MatrixModel, StatCard } from "./judges";
import { raterPairCells, raterPairColumns } from "./rater-pairs";
import type { TableModel } from "./table";

export interface CsvPreview {
  header: string[];
  rows: string[][];
  rowCount: number;
  error: string | null;
}

export function previewCsv(text: string, delimiter: string, fileName: string, maxRows = 6): CsvPreview {
  try {
    const t = parseCsvTable(text, { delimiter, source: fileName });
    return { header: t.header, rows: t.rows.slice(0, maxRows), rowCount: t.rows.length, error: null };
  } catch (e) {
    return { header: [], rows: [], rowCount: 0, error: (e as Error).message };
  }
}

const GUESSES: Record<"item" | "rater" | "label", RegExp[]> = {
  item: [/^(item|unit|trajectory|traj|task)(_?id)?$/i, /item|trajector|task|unit|^id$/i],
  rater: [/^(rater|annotator|coder|judge|user|worker)(_?(id|name))?$/i, /rater|annotat|coder|judge|user|worker/i],
  label: [/^(label|verdict|rating|grade|answer|category|score)$/i, /label|verdict|rating|grade|category/i],
};

/** A first guess at the columns from their names (each column used at most once). */
export function guessColumns(header: string[]): { item: string[]; rater: string; label: string } {
  const used = new Set<string>();
  const pick = (role: "item" | "rater" | "label"): string | undefined => {
    for (const re of GUESSES[role]) {
      const hit = header.find((h) => !used.has(h) && re.test(h));
      if (hit !== undefined) {
        used.add(hit);
        return hit;
      }
    }
    return undefined;
  };
  const rater = pick("rater");
  const label = pick("label");
  const item = pick("item");
  const rest = header.filter((h) => !used.has(h));
  return { item: item !== undefined ? [item] : rest.slice(0, 1), rater: rater ?? rest[1] ?? header[1] ?? "", label: label ?? rest[2] ?? header[2] ?? "" };
}

/** The equivalent CLI call (arguments quoted for a POSIX shell). */
export function cliCommand(fileName: string, item: string[], rater: string, label: string, delimiter: string, minShared: number): string {
  const q = (s: string) => (/^[\w./,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const parts = ["npm run cli -- agreement csv", q(fileName), "--item", q(item.join(",")), "--rater", q(rater), "--label", q(label)];
  if (delimiter !== ",") parts.push("--delimiter", q(delimiter));
  if (minShared !== 10) parts.push("--min-shared", String(minShared));
  return parts.join(" ");
}

export interface CsvReportView {
  cards: StatCard[];
  /** Rows of a Verdict label export left out on purpose, in words. */
  notes: string[];
  pairwise: TableModel;
  matrix: MatrixModel | null;
}

export function prepareCsvReport(r: CsvAgreementResult): CsvReportView {
  const rep = r.report;
  const cards: StatCard[] = [
    { key: "items", label: "Items", value: fmtCount(rep.items), detail: `${fmtCount(rep.pairableItems)} with ≥ 2 ratings` },
    { key: "raters", label: "Raters", value: fmtCount(rep.raters), detail: `${fmtCount(rep.ratings)} ratings` },
    {
      key: "alpha",
      label: "Krippendorff α",
      value: fmtCoef(rep.krippendorff.alpha),
      detail: rep.krippendorff.reason ?? `nominal · 95% CI ${fmtInterval(rep.krippendorff.interval)}`,
      title: rep.krippendorff.reason ? undefined : intervalTitle(rep.krippendorff.interval),
    },
    {
      key: "percent",
      label: "Pairwise agreement",
      value: fmtPercent(rep.percentAgreement.value),
      detail: rep.percentAgreement.reason ?? "mean over items with ≥ 2 ratings",
    },
    {
      key: "fleiss",
      label: "Fleiss κ",
      value: fmtCoef(rep.fleiss.kappa),
      detail: rep.fleiss.reason ?? `${rep.fleiss.ratingsPerItem} ratings per item · 95% CI ${fmtInterval(rep.fleiss.interval)}`,
      title: rep.fleiss.reason ? undefined : intervalTitle(rep.fleiss.interval),
    },
    { key: "labels", label: "Labels", value: fmtCount(rep.labels.length), detail: rep.labels.slice(0, 6).join(", ") + (rep.labels.length > 6 ? ", …" : "") },
  ];
  const pairwise: TableModel = {
    name: `${r.fileName} pairwise kappa`,
    columns: raterPairColumns("Rater", "Shared items"),
    rows: rep.pairwise.map((p) => ({
      key: `${p.raterA}\u0000${p.raterB}`,
      cells: {
        a: { text: p.raterA },
        b: { text: p.raterB },
        shared: { text: fmtCount(p.sharedItems), csv: [String(p.sharedItems)] },
        ...raterPairCells(p.percentAgreement, p),
      },
    })),
    empty: `No rater pair shares ${rep.minSharedItems} or more items, so there is no pairwise Cohen κ.`,
  };
  let matrix: MatrixModel | null = null;
  if (rep.raters <= 20 && rep.pairwise.length) {
    const byPair = new Map(rep.pairwise.map((p) => [`${p.raterA}\u0000${p.raterB}`, p]));
    const find = (a: string, b: string) => byPair.get(`${a}\u0000${b}`) ?? byPair.get(`${b}\u0000${a}`);
    matrix = {
      rowTitle: "Rater",
      colTitle: "Rater",
      rows: rep.raterNames.map((n) => ({ key: n, label: n })),
      cols: rep.raterNames.map((n) => ({ key: n, label: n })),
      cells: rep.raterNames.map((a) =>
        rep.raterNames.map((b) => {
          if (a === b) return null;
          const p = find(a, b);
          if (!p) return { text: "·", shade: 0, title: `fewer than ${rep.minSharedItems} shared items` };
          return {
            text: fmtCoef(p.kappa),
            sub: `n ${fmtCount(p.sharedItems)}`,
            shade: p.kappa === null ? 0 : Math.max(0, p.kappa),
            title: p.reason ?? `κ ${fmtCoef(p.kappa)} ${fmtInterval(p.interval)}`,
          };
        }),
      ),
    };
  }
  return { cards, notes: r.leftOut.map((l) => `Left out: ${fmtCount(l.rows)} ${l.reason}.`), pairwise, matrix };
}
