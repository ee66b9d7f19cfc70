/**
 * References made from the annotators' own labels (server/domain/analytics/reference.ts): the majority of a
 * trajectory's labels, or one annotator's label, in the same shape as the consolidated reference (per facts row a
 * REF_* code, the error category and the first failing step), so every judge measure can use any of them.
 *
 * Labels come from the chosen campaign, or, with none chosen, from each trajectory's latest campaign that has
 * labels for it (as the consolidated reference takes each trajectory's latest consolidated label).
 */
import type { Db } from "../../../db/database";
import { listCampaignHeads, NULL_INT } from "../../../db/repositories/analytics";
import { formatReferenceSpec, majorityOutcome, plurality, type ReferenceSpec } from "../../domain/analytics/reference";
import { NotFoundError, ValidationError } from "../../errors";
import { annotatorDisplayNames } from "./common";
import {
  cachedAnalytics,
  getCampaignLabels,
  getFacts,
  getReference,
  LABEL_REFERENCE_TABLES,
  REF_FAILURE,
  REF_NONE,
  REF_SUCCESS,
  REF_TIE,
  REF_UNSURE,
  type Reference,
  type TrajectoryFacts,
} from "./dataset";

/** Annotators of the campaigns a label reference reads: key, name as shown, and how many labels they gave. */
export interface ReferenceAnnotator {
  key: string;
  name: string;
  labels: number;
}

async function campaignsOf(db: Db, campaignId: number | undefined): Promise<number[]> {
  const heads = await listCampaignHeads(db);
  if (campaignId !== undefined) {
    if (!heads.some((h) => h.id === campaignId)) throw new NotFoundError("campaign", campaignId);
    return [campaignId];
  }
  return heads.map((h) => h.id).sort((a, b) => a - b);
}

/**
 * Who labelled in which campaign, with how many active labels: counted over the campaigns' label columns, which
 * every label reference and human agreement read anyway (and keep until a label changes), instead of a scan of the
 * whole labels table on each call. Campaigns in id order.
 */
async function labelsPerAnnotator(db: Db, campaignId?: number): Promise<{ campaignId: number; annotatorKey: string; labels: number }[]> {
  const campaigns = campaignId === undefined ? (await listCampaignHeads(db)).map((h) => h.id) : [campaignId];
  const out: { campaignId: number; annotatorKey: string; labels: number }[] = [];
  for (const id of campaigns) {
    const l = await getCampaignLabels(db, id);
    const counts = new Int32Array(l.dict.annotatorKey.length);
    for (let i = 0; i < l.length; i++) {
      const code = l.col.annotatorKey[i]!;
      if (code >= 0) counts[code]!++;
    }
    l.dict.annotatorKey.forEach((key, code) => {
      if (counts[code]! > 0) out.push({ campaignId: id, annotatorKey: key, labels: counts[code]! });
    });
  }
  return out;
}

/** Every annotator with labels in the campaign (or in any campaign), by name. */
export async function referenceAnnotators(db: Db, campaignId?: number): Promise<ReferenceAnnotator[]> {
  const counts = new Map<string, number>();
  for (const row of await labelsPerAnnotator(db, campaignId)) counts.set(row.annotatorKey, (counts.get(row.annotatorKey) ?? 0) + row.labels);
  const keys = [...counts.keys()];
  const names = await annotatorDisplayNames(db, keys);
  return keys.map((key, i) => ({ key, name: names[i]!, labels: counts.get(key)! })).sort((a, b) => a.name.localeCompare(b.name) || (a.key < b.key ? -1 : 1));
}

/** Each annotator with the campaigns they labelled in (for pickers that follow the chosen campaign). */
export async function annotatorsByCampaign(db: Db): Promise<{ key: string; name: string; campaigns: number[] }[]> {
  const rows = await labelsPerAnnotator(db);
  const campaigns = new Map<string, number[]>();
  for (const r of rows) (campaigns.get(r.annotatorKey) ?? campaigns.set(r.annotatorKey, []).get(r.annotatorKey)!).push(r.campaignId);
  const keys = [...campaigns.keys()];
  const names = await annotatorDisplayNames(db, keys);
  return keys
    .map((key, i) => ({ key, name: names[i]!, campaigns: campaigns.get(key)! }))
    .sort((a, b) => a.name.localeCompare(b.name) || (a.key < b.key ? -1 : 1));
}

/** The annotator a reference names: by the name Verdict shows, or by their key; an error lists who there is. */
export async function resolveAnnotator(db: Db, campaignId: number | undefined, name: string): Promise<ReferenceAnnotator> {
  const all = await referenceAnnotators(db, campaignId);
  const byKey = all.find((a) => a.key === name);
  if (byKey) return byKey;
  const byName = all.filter((a) => a.name === name);
  if (byName.length === 1) return byName[0]!;
  const where = campaignId === undefined ? "any campaign" : `campaign #${campaignId}`;
  if (byName.length > 1)
    throw new ValidationError(
      `${byName.length} annotators in ${where} are called ${JSON.stringify(name)}; name one by key: ${byName.map((a) => a.key).join(", ")}`,
    );
  throw new ValidationError(
    `no annotator ${JSON.stringify(name)} has labels in ${where}; the annotators are ${all.map((a) => JSON.stringify(a.name)).join(", ") || "(none)"}`,
  );
}

async function loadLabelReference(
  db: Db,
  facts: TrajectoryFacts,
  campaignId: number | undefined,
  spec: Exclude<ReferenceSpec, { kind: "consolidated" }>,
): Promise<Reference> {
  const n = facts.n;
  const verdict = new Int8Array(n).fill(REF_NONE);
  const category = new Int32Array(n).fill(-1);
  const firstFailingStep = new Int32Array(n).fill(NULL_INT);
  const fromCampaign = new Int32Array(n);
  const categories: string[] = [];
  const categoryIndex = new Map<string, number>();
  const categoryCode = (name: string) => categoryIndex.get(name) ?? (categoryIndex.set(name, categories.length), categories.push(name) - 1);
  const annotator = spec.kind === "annotator" ? await resolveAnnotator(db, campaignId, spec.annotator) : null;
  // Per row, this campaign's votes (majority): typed arrays over the facts rows, reset when a campaign first
  // touches a row, so a later campaign replaces an earlier one's labels of the same trajectory.
  const successes = new Int32Array(n);
  const failures = new Int32Array(n);
  const undecided = new Int32Array(n);

  for (const id of await campaignsOf(db, campaignId)) {
    const l = await getCampaignLabels(db, id);
    const words = l.dict.verdict.map((v) => (v === "success" ? REF_SUCCESS : v === "failure" ? REF_FAILURE : REF_UNSURE));
    const catCodes = l.dict.category.map(categoryCode);
    const wanted = annotator ? l.dict.annotatorKey.indexOf(annotator.key) : -1;
    if (annotator && wanted < 0) continue;
    const touched: number[] = [];
    const rowOf = new Int32Array(l.length);
    for (let i = 0; i < l.length; i++) {
      rowOf[i] = -1;
      if (annotator && l.col.annotatorKey[i] !== wanted) continue;
      const r = facts.rowOf(l.col.trajectoryId[i]!);
      if (r < 0 || id < fromCampaign[r]!) continue;
      rowOf[i] = r;
      if (fromCampaign[r] !== id) {
        fromCampaign[r] = id;
        successes[r] = failures[r] = undecided[r] = 0;
        category[r] = -1;
        firstFailingStep[r] = NULL_INT;
        touched.push(r);
      }
      const w = words[l.col.verdict[i]!]!;
      if (w === REF_SUCCESS) successes[r]!++;
      else if (w === REF_FAILURE) failures[r]!++;
      else undecided[r]!++;
      if (annotator) {
        // A trajectory is one item per campaign, so an annotator has one active label on it.
        verdict[r] = w;
        category[r] = w === REF_FAILURE && l.col.category[i]! >= 0 ? catCodes[l.col.category[i]!]! : -1;
        firstFailingStep[r] = w === REF_FAILURE ? l.col.firstFailingStep[i]! : NULL_INT;
      }
    }
    if (annotator) continue;
    for (const r of touched) {
      const outcome = majorityOutcome(successes[r]!, failures[r]!, undecided[r]!);
      verdict[r] =
        outcome === "success" ? REF_SUCCESS : outcome === "failure" ? REF_FAILURE : outcome === "tie" ? REF_TIE : outcome === "unsure" ? REF_UNSURE : REF_NONE;
    }
    // A failure majority's category: the most frequent among its failure labels (none on a tie between categories),
    // tallied in one flat array over the failure majorities of this campaign (no per-row lists, no sort).
    const K = categories.length;
    const slot = new Int32Array(touched.length);
    const slotOf = new Int32Array(n).fill(-1);
    let slots = 0;
    for (const r of touched) {
      if (verdict[r] !== REF_FAILURE) continue;
      slot[slots] = r;
      slotOf[r] = slots++;
    }
    const tally = new Int32Array(slots * K);
    const voted = new Uint8Array(slots);
    for (let i = 0; i < l.length; i++) {
      const r = rowOf[i]!;
      if (r < 0 || verdict[r] !== REF_FAILURE || words[l.col.verdict[i]!] !== REF_FAILURE || l.col.category[i]! < 0) continue;
      const s = slotOf[r]!;
      tally[s * K + catCodes[l.col.category[i]!]!]!++;
      voted[s] = 1;
    }
    for (let s = 0; s < slots; s++) if (voted[s]) category[slot[s]!] = plurality(tally.subarray(s * K, (s + 1) * K));
  }
  return { verdict, category, categories, firstFailingStep, campaignId: fromCampaign, requestedCampaignId: campaignId, spec, annotatorName: annotator?.name };
}

/**
 * Each annotator's own-label reference in one pass over the campaigns' labels (the judge page's table of references
 * shows every annotator: one pass per annotator read all 300,000 labels again each time). Same rules as
 * loadLabelReference with an annotator: per trajectory, the label of the latest campaign (or the chosen one).
 */
async function loadAnnotatorReferences(db: Db, facts: TrajectoryFacts, campaignId: number | undefined, annotators: ReferenceAnnotator[]): Promise<Reference[]> {
  const n = facts.n;
  const refs = annotators.map((a) => ({
    verdict: new Int8Array(n).fill(REF_NONE),
    category: new Int32Array(n).fill(-1),
    firstFailingStep: new Int32Array(n).fill(NULL_INT),
    fromCampaign: new Int32Array(n),
    annotator: a,
  }));
  const categories: string[] = [];
  const categoryIndex = new Map<string, number>();
  const categoryCode = (name: string) => categoryIndex.get(name) ?? (categoryIndex.set(name, categories.length), categories.push(name) - 1);
  for (const id of await campaignsOf(db, campaignId)) {
    const l = await getCampaignLabels(db, id);
    const words = l.dict.verdict.map((v) => (v === "success" ? REF_SUCCESS : v === "failure" ? REF_FAILURE : REF_UNSURE));
    const catCodes = l.dict.category.map(categoryCode);
    // Annotator code in this campaign's dictionary → that annotator's reference.
    const refOfCode = l.dict.annotatorKey.map((key) => refs.find((r) => r.annotator.key === key));
    for (let i = 0; i < l.length; i++) {
      const ref = refOfCode[l.col.annotatorKey[i]!];
      if (!ref) continue;
      const r = facts.rowOf(l.col.trajectoryId[i]!);
      if (r < 0 || id < ref.fromCampaign[r]!) continue;
      ref.fromCampaign[r] = id;
      // A trajectory is one item per campaign, so an annotator has one active label on it.
      const w = words[l.col.verdict[i]!]!;
      ref.verdict[r] = w;
      ref.category[r] = w === REF_FAILURE && l.col.category[i]! >= 0 ? catCodes[l.col.category[i]!]! : -1;
      ref.firstFailingStep[r] = w === REF_FAILURE ? l.col.firstFailingStep[i]! : NULL_INT;
    }
  }
  return refs.map((ref) => ({
    verdict: ref.verdict,
    category: ref.category,
    categories: [...categories],
    firstFailingStep: ref.firstFailingStep,
    campaignId: ref.fromCampaign,
    requestedCampaignId: campaignId,
    spec: { kind: "annotator", annotator: ref.annotator.key },
    annotatorName: ref.annotator.name,
  }));
}

/**
 * Every annotator's own-label reference of `campaignId` (or each trajectory's latest campaign), in the order of
 * referenceAnnotators, computed together and kept until a label changes.
 */
export async function getAnnotatorReferences(db: Db, campaignId: number | undefined): Promise<{ annotator: ReferenceAnnotator; ref: Reference }[]> {
  const annotators = await referenceAnnotators(db, campaignId);
  const key = `annotator-references:${campaignId ?? "latest"}:${JSON.stringify(annotators.map((a) => [a.key, a.name]))}`;
  const refs = await cachedAnalytics(db, key, LABEL_REFERENCE_TABLES, async () => loadAnnotatorReferences(db, await getFacts(db), campaignId, annotators), {
    stored: true,
  });
  return annotators.map((annotator, i) => ({ annotator, ref: refs[i]! }));
}

/** The reference of `spec`: the consolidated labels, the annotators' majority, or one annotator's labels. */
export async function getReferenceFor(db: Db, campaignId: number | undefined, spec: ReferenceSpec | undefined): Promise<Reference> {
  if (!spec || spec.kind === "consolidated") return getReference(db, campaignId);
  const key = `reference:${campaignId ?? "latest"}:${formatReferenceSpec(spec)}`;
  return cachedAnalytics(db, key, LABEL_REFERENCE_TABLES, async () => loadLabelReference(db, await getFacts(db), campaignId, spec), { stored: true });
}
