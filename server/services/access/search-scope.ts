/**
 * What a viewer may search in the trajectory list: the query text parsed (server/domain/trajectories/search-query.ts)
 * and scoped to what the viewer may see. The hits shown under a page's rows are read by the list itself
 * (server/services/trajectory-views.ts).
 *
 * Who searches what: researchers and admins who label nothing blind search everything, judges' rationales and every
 * annotator's notes included, and may filter by verdicts (judge:, human:). Everyone else searches the trajectories
 * they may browse (./scope.ts) and, of the notes, only their own; rationale:, judge:, human: and scanner: are refused
 * outright, and free words never look at rationales or others' notes, so neither the rows nor the counts say whether a
 * word occurs there.
 */
import type { Db } from "../../../db/database";
import { userAnnotatorKey } from "../../../db/repositories/annotation/campaigns";
import { listStoredScanners } from "../../../db/repositories/evaluation/scanners";
import type { ScopedSearch } from "../../../db/repositories/search";
import { BUILT_IN_SCANNERS, definitionHash } from "../../domain/evaluation/scanners/definitions";
import { parseSearchQuery, SearchSyntaxError, type SearchQuery } from "../../domain/trajectories/search-query";
import { AppError, ValidationError } from "../../errors";

export type { ScopedSearch } from "../../../db/repositories/search";

/** Parses a search; bad syntax is a ValidationError whose message says what to write instead. */
export function parseSearch(text: string): SearchQuery {
  try {
    return parseSearchQuery(text);
  } catch (e) {
    if (e instanceof SearchSyntaxError) throw new ValidationError(`search: ${e.message}`);
    throw e;
  }
}

/** Who is searching: a viewer of the whole catalog, or someone (an annotator, a researcher labelling blind) who is not. */
export type SearchViewer = { wholeCatalog: true } | { wholeCatalog: false; userId: string; researcher: boolean; labellingBlind: number };

/**
 * A search as this viewer may run it; FORBIDDEN when it asks for what they may not see. `scanners` maps each
 * scanner's key to its current definition hash (currentScannerHashes): a `scanner:` clause naming a key outside it
 * is refused with the known keys listed.
 */
export function scopeSearch(text: string, viewer: SearchViewer, scanners?: ReadonlyMap<string, string>): ScopedSearch {
  const query = parseSearch(text);
  if (viewer.wholeCatalog) return { query, rationales: true, ...scannerHashesOf(query, scanners) };
  const asks = [
    ...new Set([
      ...query.verdicts.map((v) => `${v.source}:`),
      ...query.text.filter((c) => c.field === "rationale").map(() => "rationale:"),
      ...query.scanners.map(() => "scanner:"),
    ]),
  ];
  if (asks.length) {
    const why = viewer.researcher
      ? `you are labelling ${viewer.labellingBlind} trajector${viewer.labellingBlind === 1 ? "y" : "ies"} blind; they open once you have labelled them`
      : "they are for researchers and admins";
    throw new AppError("FORBIDDEN", `search: ${asks.join(", ")} search judges' verdicts, rationales or human labels: ${why}`);
  }
  return { query, notesOf: userAnnotatorKey(viewer.userId), rationales: false };
}

function scannerHashesOf(query: SearchQuery, scanners: ReadonlyMap<string, string> | undefined): Pick<ScopedSearch, "scannerHashes"> {
  if (!query.scanners.length) return {};
  const known = scanners ?? new Map<string, string>();
  const unknown = [...new Set(query.scanners.map((c) => c.key).filter((k) => !known.has(k)))];
  if (unknown.length) {
    const names = unknown.map((k) => `scanner:${k}`).join(", ");
    throw new ValidationError(
      `search: ${names} ${unknown.length === 1 ? "names no scanner" : "name no scanner"}; the scanners are ${[...known.keys()].join(", ")}`,
    );
  }
  return { scannerHashes: Object.fromEntries(query.scanners.map((c) => [c.key, known.get(c.key)!])) };
}

/** Every scanner's key with its current definition hash, for scopeSearch. */
export async function currentScannerHashes(db: Db): Promise<Map<string, string>> {
  const stored = (await listStoredScanners(db)).map((r) => ({ key: r.key, rules: r.rules, minConsecutive: r.minConsecutive }));
  return new Map([...BUILT_IN_SCANNERS, ...stored].map((d) => [d.key, definitionHash(d)]));
}
