/**
 * How "next" chooses an annotator's next trajectory: the campaign's assignment strategy, the silent mixing of gold
 * items (trajectories with a known answer) into each annotator's queue, and how an annotator's answers on gold
 * items are judged against the warn and block thresholds. Pure functions: the service reads the candidates and
 * the counts, these decide.
 */
import { wilsonInterval, type ProportionInterval } from "../agreement/proportion";
import type { LabelVerdict } from "./label-schema";

export const ASSIGNMENT_STRATEGIES = ["least_covered", "random", "by_site", "by_run", "disputed_first"] as const;
export type AssignmentStrategy = (typeof ASSIGNMENT_STRATEGIES)[number];

export const ASSIGNMENT_STRATEGY_LABELS: Record<AssignmentStrategy, string> = {
  least_covered: "Least covered first",
  random: "Random (a fixed order per annotator)",
  by_site: "Balanced across sites",
  by_run: "Balanced across runs",
  disputed_first: "Disputed first (QA / adjudication stage)",
};

/** Where a gold item's answer came from: set by a researcher, or promoted from unanimous or adjudicated labels. */
export type GoldSource = "marked" | "unanimous" | "adjudicated";

/** FNV-1a over a string, then a 32-bit finaliser (murmur3's fmix32) so nearby inputs spread over the range. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number in [0, 1) fixed by the text: the same annotator, campaign and turn always draw the same value. */
export function uniform01(text: string): number {
  return hash32(text) / 0x1_0000_0000;
}

/**
 * Whether the annotator's `turn`-th assignment in a campaign (0 = their first) is a gold item. Each turn is an
 * independent draw with probability `rate`, seeded by annotator, campaign and turn: over many turns the share of
 * gold approaches the rate, the pattern differs between annotators and has no period to notice, and asking again
 * for the same turn (a reload, a skip) gives the same answer.
 */
export function isGoldTurn(userId: string, campaignId: number, turn: number, rate: number): boolean {
  if (!(rate > 0)) return false;
  if (rate >= 1) return true;
  return uniform01(`gold:${campaignId}:${userId}:${turn}`) < rate;
}

/** One trajectory "next" could hand out, with what the strategies order by. */
export interface QueueCandidate {
  itemId: number;
  trajectoryId: number;
  /** Active labels on the item. */
  labelCount: number;
  /** Other annotators' live reservations on it. */
  reserved: number;
  /** The annotator's own shuffled position of the item (see queueOrderSalt): the tie-break of every strategy. */
  order: number;
  /** Site or run of the trajectory (by_site / by_run). */
  stratum?: string | null;
  /** Distinct verdicts among its active labels (disputed_first: more than one = the labels disagree). */
  verdicts?: number;
  /** The item already has its consolidated outcome "disputed" (awaits adjudication). */
  disputed?: boolean;
}

/** Per stratum: items in it and the active labels they hold (over the whole campaign, not only candidates). */
export interface StratumCoverage {
  items: number;
  labels: number;
}

/**
 * The candidate a strategy hands out next, or undefined when none is left. An item is full when its labels plus
 * others' live reservations reach `needed` (disputed items stay open to disputed_first, whose reviewers come after
 * the first k annotators).
 *
 * - least_covered: fewest labels + reservations, then the annotator's own order;
 * - random: the annotator's own order only (a per-annotator shuffle, seeded by their id);
 * - by_site / by_run: the stratum whose items have the smallest share of their needed labels, then least covered
 *   inside it, so every site (or run) advances at the same pace;
 * - disputed_first: items whose labels disagree (or that are disputed), then least covered.
 */
export function pickCandidate(
  strategy: AssignmentStrategy,
  candidates: readonly QueueCandidate[],
  needed: number,
  strata?: ReadonlyMap<string, StratumCoverage>,
): QueueCandidate | undefined {
  const coverage = (c: QueueCandidate) => c.labelCount + c.reserved;
  const open = candidates.filter((c) => coverage(c) < needed || (strategy === "disputed_first" && (c.disputed || (c.verdicts ?? 0) > 1)));
  if (!open.length) return undefined;
  const byCoverage = (a: QueueCandidate, b: QueueCandidate) => coverage(a) - coverage(b) || a.labelCount - b.labelCount || a.order - b.order;
  switch (strategy) {
    case "least_covered":
      return open.reduce((best, c) => (byCoverage(c, best) < 0 ? c : best));
    case "random":
      return open.reduce((best, c) => (c.order < best.order ? c : best));
    case "disputed_first": {
      const disagree = (c: QueueCandidate) => (c.disputed || (c.verdicts ?? 0) > 1 ? 0 : 1);
      return open.reduce((best, c) => ((disagree(c) - disagree(best) || byCoverage(c, best)) < 0 ? c : best));
    }
    case "by_site":
    case "by_run": {
      const share = (c: QueueCandidate) => {
        const s = strata?.get(c.stratum ?? "");
        return s && s.items > 0 ? s.labels / (s.items * needed) : 0;
      };
      return open.reduce((best, c) => ((share(c) - share(best) || byCoverage(c, best)) < 0 ? c : best));
    }
  }
}

// ---------------------------------------------------------------- gold answers

export interface GoldAnswer {
  verdict: LabelVerdict;
  category: string | null;
}

/** A label is right on a gold item when its verdict matches and, if the answer names a category, so does the label's. */
export function isGoldCorrect(gold: GoldAnswer, label: { verdict: string; category: string | null }): boolean {
  if (label.verdict !== gold.verdict) return false;
  return gold.category === null || label.category === gold.category;
}

export interface GoldThresholds {
  goldWarnBelow: number | null;
  goldBlockBelow: number | null;
  goldMinAnswered: number;
}

export type GoldStatus = "too_few" | "ok" | "warn" | "blocked";

export interface GoldStanding {
  answered: number;
  correct: number;
  /** Accuracy with its 95 % Wilson interval (estimate null before any answer). */
  accuracy: ProportionInterval;
  status: GoldStatus;
}

/**
 * An annotator's standing on gold. Thresholds apply to the observed accuracy once they have answered at least
 * `goldMinAnswered` gold items (before that: "too_few", never blocked on one unlucky answer); below the block
 * threshold they are blocked, below the warn threshold the researcher is warned.
 */
export function goldStanding(correct: number, answered: number, t: GoldThresholds): GoldStanding {
  const accuracy = wilsonInterval(correct, answered);
  let status: GoldStatus = "ok";
  if (answered < Math.max(1, t.goldMinAnswered)) status = "too_few";
  else if (t.goldBlockBelow !== null && accuracy.estimate! < t.goldBlockBelow) status = "blocked";
  else if (t.goldWarnBelow !== null && accuracy.estimate! < t.goldWarnBelow) status = "warn";
  return { answered, correct, accuracy, status };
}
