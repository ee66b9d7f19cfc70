/**
 * Failure clusters: failed or disputed trajectories grouped by what their text says went wrong, without a model.
 *
 * The method, step by step (docs/guide/analytics.md, "Failure clusters", says the same to users):
 * 1. Tokens. Each piece of text (a note, a rationale, a thought, an action, a URL, an error) is lower-cased and split
 *    on anything that is not a letter or a digit. Stop words (common English words and URL boilerplate such as
 *    "https", "www", "com") are dropped, and so are tokens of one character, numbers other than three-digit ones
 *    (HTTP statuses like 403 or 500 are kept; element numbers like [12] are not) and tokens mixing digits and letters
 *    longer than six characters (ids, hashes). Adjacent kept tokens of one piece also form a bigram ("login wall").
 * 2. TF-IDF. A term's weight in a document is (1 + ln count) × (1 + ln((1 + N) / (1 + df))), N documents, df of them
 *    holding the term (the smoothed inverse document frequency scikit-learn uses by default: a term in every document
 *    still weighs a little, so failures that all say the same thing still form a cluster). Terms found in a single
 *    document cannot bring two documents together and are dropped (df ≥ 2). Each vector is scaled to length 1, so a
 *    dot product is the cosine similarity.
 * 3. Spherical k-means. Centres start by k-means++ drawn with a seeded generator, then documents go to the centre
 *    they are most similar to (ties: the lower centre) and each centre becomes its members' mean scaled to length 1,
 *    until no document moves. A few seeded restarts run and the one with the highest total similarity is kept.
 * 4. k. Given by the user, or chosen as the k in 2 … min(12, ⌊√N⌋) with the highest simplified silhouette
 *    (per document, a = 1 − similarity to its own centre, b = 1 − similarity to the nearest other centre,
 *    s = (b − a) / max(a, b); the mean over documents), the smaller k on a tie.
 * 5. Reading a cluster. Its defining terms are those whose mean weight in the cluster most exceeds their mean weight
 *    over every document; its examples are the members most similar to its centre.
 *
 * Same input, same clusters: documents are sorted by id before anything else and every choice breaks ties the same
 * way, so neither the order the documents came in nor a second run changes anything. Documents left with no term
 * (no text, or only words no other document has) are reported apart, not forced into a cluster.
 */
import { ValidationError } from "../../errors";
import { createRng } from "../agreement/random";
import { searchWords } from "../trajectories/search-query";

/** One failed or disputed trajectory's text, in pieces (a bigram never spans two pieces). */
export interface ClusterDocument {
  id: number;
  texts: readonly string[];
}

export interface ClusterOptions {
  /** The number of clusters; chosen by silhouette when absent. */
  k?: number;
  seed?: number;
  /** Reports the share of the work done, from 0 to 1 (the page's progress bar). */
  onProgress?: (done: number) => void;
}

export interface WeightedTerm {
  term: string;
  weight: number;
}

/** A term's mean weight among the cluster's members and over every document: what merging two clusters needs. */
export interface TermMean {
  term: string;
  mean: number;
  overall: number;
}

export interface ComputedCluster {
  /** Trajectory ids, most similar to the centre first (ties: lower id first). */
  members: number[];
  /** Each member's cosine similarity to the centre, in the order of `members`. */
  similarity: number[];
  /** The defining terms, strongest first. */
  terms: WeightedTerm[];
  /** The cluster's strongest mean weights (MEANS_KEPT of them), kept so two clusters can be merged later. */
  means: TermMean[];
}

export interface ClusteringResult {
  k: number;
  chosenBy: "given" | "silhouette" | "too few";
  /** The simplified silhouette of each k tried (only k itself when given). */
  candidates: { k: number; silhouette: number }[];
  clusters: ComputedCluster[];
  /** Documents with no term to group them by. */
  unclustered: number[];
  /** The k asked for, when there were fewer documents to group than that (k is then the number of documents). */
  requestedK?: number;
  documents: number;
  vocabulary: number;
}

export const MAX_CLUSTERS = 12;
export const DEFINING_TERMS = 8;
export const MEANS_KEPT = 40;
const RESTARTS = 3;
const MAX_ITERATIONS = 60;
const DEFAULT_SEED = 29;

// Common English words, words every agent trajectory repeats, and URL boilerplate.
const STOP_WORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both but by can " +
    "could did do does doing down during each else even few for from further had has have having he her here hers him his how i if " +
    "in into is it its itself just let me more most my no nor not now of off on once only or other our ours out over own same she " +
    "should so some such than that the their theirs them then there these they this those through to too under until up very was " +
    "we were what when where which while who whom why will with would you your yours yourself ll ve re don didn doesn isn wasn " +
    "http https www com org net html htm php aspx index"
  ).split(" "),
);

/** The kept tokens of one piece of text, in order (step 1 of the method). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  // Split as the behaviour search's indexes split, so a cluster's terms are words a search finds.
  for (const raw of searchWords(text.normalize("NFKC"))) {
    if (raw.length < 2 || STOP_WORDS.has(raw)) continue;
    const digits = /\p{N}/u.test(raw);
    if (digits && /^\p{N}+$/u.test(raw) && raw.length !== 3) continue;
    if (digits && !/^\p{N}+$/u.test(raw) && raw.length > 6) continue;
    out.push(raw);
  }
  return out;
}

/** A document's terms with their counts: each piece's tokens and the bigrams of adjacent tokens. */
export function termCounts(texts: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (t: string) => counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const text of texts) {
    const tokens = tokenize(text);
    for (let i = 0; i < tokens.length; i++) {
      add(tokens[i]!);
      if (i > 0) add(`${tokens[i - 1]} ${tokens[i]}`);
    }
  }
  return counts;
}

/** A unit-length sparse vector: term indexes ascending and their weights. */
export interface SparseVector {
  index: Int32Array;
  value: Float64Array;
}

export interface TfIdf {
  /** The vocabulary, alphabetical: a term's index is its position. */
  terms: string[];
  vectors: SparseVector[];
}

/** TF-IDF vectors of documents' term counts (step 2 of the method); a document with no kept term gets an empty vector. */
export function tfIdf(docs: readonly Map<string, number>[]): TfIdf {
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  const terms = [...df.entries()]
    .filter(([, f]) => f >= 2)
    .map(([t]) => t)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const indexOf = new Map(terms.map((t, i) => [t, i]));
  const vectors = docs.map((d) => {
    const entries: [number, number][] = [];
    for (const [t, c] of d) {
      const i = indexOf.get(t);
      if (i !== undefined) entries.push([i, (1 + Math.log(c)) * (1 + Math.log((1 + n) / (1 + df.get(t)!)))]);
    }
    entries.sort((a, b) => a[0] - b[0]);
    const norm = Math.sqrt(entries.reduce((s, [, w]) => s + w * w, 0));
    return { index: Int32Array.from(entries, ([i]) => i), value: Float64Array.from(entries, ([, w]) => w / norm) };
  });
  return { terms, vectors };
}

function dot(v: SparseVector, centre: Float64Array): number {
  let s = 0;
  for (let j = 0; j < v.index.length; j++) s += v.value[j]! * centre[v.index[j]!]!;
  return s;
}

/** The members' mean (unscaled) and, when it is not zero, the same scaled to length 1. */
function centreOf(vectors: readonly SparseVector[], members: readonly number[], dims: number): { mean: Float64Array; unit: Float64Array } {
  const mean = new Float64Array(dims);
  for (const m of members) {
    const v = vectors[m]!;
    for (let j = 0; j < v.index.length; j++) mean[v.index[j]!]! += v.value[j]!;
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    mean[i]! /= Math.max(1, members.length);
    norm += mean[i]! * mean[i]!;
  }
  norm = Math.sqrt(norm);
  const unit = new Float64Array(dims);
  if (norm > 0) for (let i = 0; i < dims; i++) unit[i] = mean[i]! / norm;
  return { mean, unit };
}

export interface KMeansResult {
  assignment: Int32Array;
  centres: Float64Array[];
  /** Sum over documents of the similarity to their centre: what k-means maximises. */
  total: number;
}

/** k-means++ seeding: the first centre at random, each next one a document drawn with chance ∝ (1 − best similarity)². */
function seedCentres(vectors: readonly SparseVector[], k: number, dims: number, rng: () => number): Float64Array[] {
  const n = vectors.length;
  const centres = [centreOf(vectors, [Math.floor(rng() * n)], dims).unit];
  const best = new Float64Array(n).fill(-Infinity);
  while (centres.length < k) {
    const last = centres[centres.length - 1]!;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      best[i] = Math.max(best[i]!, dot(vectors[i]!, last));
      sum += (1 - best[i]!) ** 2;
    }
    let pick = 0;
    if (sum > 1e-12) {
      let r = rng() * sum;
      for (pick = 0; pick < n - 1; pick++) {
        r -= (1 - best[pick]!) ** 2;
        if (r < 0) break;
      }
    } else {
      pick = centres.length % n;
    }
    centres.push(centreOf(vectors, [pick], dims).unit);
  }
  return centres;
}

/** Assigns every document to its most similar centre; returns how many moved and the total similarity. */
function assign(
  vectors: readonly SparseVector[],
  centres: readonly Float64Array[],
  assignment: Int32Array,
  similarity: Float64Array,
): { moved: number; total: number } {
  let moved = 0;
  let total = 0;
  for (let i = 0; i < vectors.length; i++) {
    let best = 0;
    let bestSim = -Infinity;
    for (let c = 0; c < centres.length; c++) {
      const s = dot(vectors[i]!, centres[c]!);
      if (s > bestSim + 1e-12) {
        best = c;
        bestSim = s;
      }
    }
    if (assignment[i] !== best) moved++;
    assignment[i] = best;
    similarity[i] = bestSim;
    total += bestSim;
  }
  return { moved, total };
}

/** Spherical k-means from one seeding (step 3 of the method); an emptied cluster takes the worst-placed document. */
export function kMeans(vectors: readonly SparseVector[], k: number, dims: number, seed: number): KMeansResult {
  const n = vectors.length;
  let centres = seedCentres(vectors, k, dims, createRng(seed));
  const assignment = new Int32Array(n).fill(-1);
  const similarity = new Float64Array(n);
  let total = 0;
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    const pass = assign(vectors, centres, assignment, similarity);
    total = pass.total;
    if (pass.moved === 0) break;
    const members: number[][] = Array.from({ length: k }, () => []);
    for (let i = 0; i < n; i++) members[assignment[i]!]!.push(i);
    for (let c = 0; c < k; c++) {
      if (members[c]!.length) continue;
      let worst = -1;
      for (let i = 0; i < n; i++) if (members[assignment[i]!]!.length > 1 && (worst < 0 || similarity[i]! < similarity[worst]!)) worst = i;
      if (worst < 0) continue;
      members[assignment[worst]!] = members[assignment[worst]!]!.filter((m) => m !== worst);
      members[c]!.push(worst);
      assignment[worst] = c;
    }
    centres = members.map((m) => centreOf(vectors, m, dims).unit);
  }
  return { assignment, centres, total };
}

/** Mean simplified silhouette of an assignment (step 4 of the method). */
export function simplifiedSilhouette(vectors: readonly SparseVector[], r: KMeansResult): number {
  if (r.centres.length < 2 || !vectors.length) return 0;
  let sum = 0;
  for (let i = 0; i < vectors.length; i++) {
    const own = r.assignment[i]!;
    const a = 1 - dot(vectors[i]!, r.centres[own]!);
    let b = Infinity;
    for (let c = 0; c < r.centres.length; c++) if (c !== own) b = Math.min(b, 1 - dot(vectors[i]!, r.centres[c]!));
    const m = Math.max(a, b);
    sum += m > 0 ? (b - a) / m : 0;
  }
  return sum / vectors.length;
}

function bestOfRestarts(vectors: readonly SparseVector[], k: number, dims: number, seed: number): KMeansResult {
  let best: KMeansResult | undefined;
  for (let r = 0; r < RESTARTS; r++) {
    const result = kMeans(vectors, k, dims, seed + r * 7919);
    if (!best || result.total > best.total + 1e-9) best = result;
  }
  return best!;
}

/** The ks tried when none is given. */
export function candidateKs(documents: number): number[] {
  const top = Math.min(MAX_CLUSTERS, Math.floor(Math.sqrt(documents)));
  return top < 2 ? [] : Array.from({ length: top - 1 }, (_, i) => i + 2);
}

function describeCluster(
  members: number[],
  ids: readonly number[],
  vectors: readonly SparseVector[],
  terms: readonly string[],
  overall: Float64Array,
): ComputedCluster {
  const { mean, unit } = centreOf(vectors, members, terms.length);
  const ranked = members.map((m) => ({ id: ids[m]!, similarity: dot(vectors[m]!, unit) })).sort((a, b) => b.similarity - a.similarity || a.id - b.id);
  const byMean: TermMean[] = [];
  for (let t = 0; t < terms.length; t++) if (mean[t]! > 0) byMean.push({ term: terms[t]!, mean: mean[t]!, overall: overall[t]! });
  byMean.sort((a, b) => b.mean - b.overall - (a.mean - a.overall) || (a.term < b.term ? -1 : 1));
  const means = byMean.slice(0, MEANS_KEPT);
  return { members: ranked.map((r) => r.id), similarity: ranked.map((r) => r.similarity), terms: definingTerms(means), means };
}

/** The strongest terms by how much more they weigh in the cluster than overall (all of its mean when that is everything). */
export function definingTerms(means: readonly TermMean[]): WeightedTerm[] {
  const lift = means.map((m) => ({ term: m.term, weight: m.mean - m.overall })).filter((t) => t.weight > 1e-12);
  const ranked = lift.length ? lift : means.map((m) => ({ term: m.term, weight: m.mean }));
  return ranked.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1)).slice(0, DEFINING_TERMS);
}

/** Groups documents by their text (the whole method). */
export function clusterDocuments(input: readonly ClusterDocument[], options: ClusterOptions = {}): ClusteringResult {
  if (options.k !== undefined && (!Number.isInteger(options.k) || options.k < 1 || options.k > MAX_CLUSTERS)) {
    throw new ValidationError(`k: write a whole number from 1 to ${MAX_CLUSTERS}`);
  }
  const seed = options.seed ?? DEFAULT_SEED;
  const progress = options.onProgress ?? (() => undefined);
  const docs = [...new Map(input.map((d) => [d.id, d])).values()].sort((a, b) => a.id - b.id);
  const { terms, vectors: all } = tfIdf(docs.map((d) => termCounts(d.texts)));
  const kept = docs.map((_, i) => i).filter((i) => all[i]!.index.length > 0);
  const ids = kept.map((i) => docs[i]!.id);
  const vectors = kept.map((i) => all[i]!);
  const unclustered = docs.filter((_, i) => all[i]!.index.length === 0).map((d) => d.id);
  const overall = centreOf(
    vectors,
    vectors.map((_, i) => i),
    terms.length,
  ).mean;
  const reduced = options.k !== undefined && options.k > vectors.length ? { requestedK: options.k } : {};
  const base = { unclustered, documents: docs.length, vocabulary: terms.length, ...reduced };
  const ks = options.k !== undefined ? [Math.min(options.k, vectors.length)] : candidateKs(vectors.length);
  if (!vectors.length) return { ...base, k: 0, chosenBy: "too few", candidates: [], clusters: [] };
  if (!ks.length || ks[0]! < 2) {
    const cluster = describeCluster(
      vectors.map((_, i) => i),
      ids,
      vectors,
      terms,
      overall,
    );
    return { ...base, k: 1, chosenBy: options.k !== undefined ? "given" : "too few", candidates: [], clusters: [cluster] };
  }
  let best: { k: number; silhouette: number; result: KMeansResult } | undefined;
  const candidates: { k: number; silhouette: number }[] = [];
  for (const [i, k] of ks.entries()) {
    const result = bestOfRestarts(vectors, k, terms.length, seed);
    const silhouette = simplifiedSilhouette(vectors, result);
    candidates.push({ k, silhouette });
    if (!best || silhouette > best.silhouette + 1e-9) best = { k, silhouette, result };
    progress((i + 1) / ks.length);
  }
  const groups: number[][] = Array.from({ length: best!.k }, () => []);
  best!.result.assignment.forEach((c, i) => groups[c]!.push(i));
  const clusters = groups
    .filter((g) => g.length)
    .map((g) => describeCluster(g, ids, vectors, terms, overall))
    .sort((a, b) => b.members.length - a.members.length || Math.min(...a.members) - Math.min(...b.members));
  return { ...base, k: best!.k, chosenBy: options.k !== undefined ? "given" : "silhouette", candidates, clusters };
}

/** How many of a cluster's members fall in each group (a site, an agent run), largest first, then by name. */
export function shareBy(members: readonly number[], groupOf: (id: number) => string): { name: string; n: number }[] {
  const counts = new Map<string, number>();
  for (const m of members) counts.set(groupOf(m), (counts.get(groupOf(m)) ?? 0) + 1);
  return [...counts.entries()].map(([name, n]) => ({ name, n })).sort((a, b) => b.n - a.n || (a.name < b.name ? -1 : 1));
}

/** A cluster as a saved run keeps it: what was computed, with its name and its shares by site and agent run. */
export interface SavedCluster extends ComputedCluster {
  /** Stable within its run: clusters are numbered 1… as computed, a merge takes the next free number. */
  key: number;
  name: string | null;
  bySite: { name: string; n: number }[];
  byRun: { name: string; n: number }[];
  /** The keys of the clusters merged into this one. */
  mergedFrom?: number[];
}

function addShares(a: readonly { name: string; n: number }[], b: readonly { name: string; n: number }[]): { name: string; n: number }[] {
  const counts = new Map<string, number>();
  for (const s of [...a, ...b]) counts.set(s.name, (counts.get(s.name) ?? 0) + s.n);
  return [...counts.entries()].map(([name, n]) => ({ name, n })).sort((x, y) => y.n - x.n || (x.name < y.name ? -1 : 1));
}

/**
 * Two clusters as one. Members, shares and sizes add up exactly. The merged mean weights are the size-weighted means
 * of the two clusters' kept terms (a term one cluster did not keep counts as 0 there), so its defining terms are
 * close to, not always exactly, those a new run would find; members keep their similarity to their former centre.
 */
export function mergeClusters(a: SavedCluster, b: SavedCluster, key: number): SavedCluster {
  const na = a.members.length;
  const nb = b.members.length;
  const means = new Map<string, TermMean>();
  for (const [c, n] of [
    [a, na],
    [b, nb],
  ] as const) {
    for (const m of c.means) {
      const prev = means.get(m.term) ?? { term: m.term, mean: 0, overall: m.overall };
      means.set(m.term, { ...prev, mean: prev.mean + (m.mean * n) / (na + nb) });
    }
  }
  const merged = [...means.values()].sort((x, y) => y.mean - y.overall - (x.mean - x.overall) || (x.term < y.term ? -1 : 1)).slice(0, MEANS_KEPT);
  const ranked = [...a.members.map((id, i) => ({ id, s: a.similarity[i]! })), ...b.members.map((id, i) => ({ id, s: b.similarity[i]! }))].sort(
    (x, y) => y.s - x.s || x.id - y.id,
  );
  return {
    key,
    name: a.name ?? b.name,
    members: ranked.map((r) => r.id),
    similarity: ranked.map((r) => r.s),
    terms: definingTerms(merged),
    means: merged,
    bySite: addShares(a.bySite, b.bySite),
    byRun: addShares(a.byRun, b.byRun),
    mergedFrom: [...(a.mergedFrom ?? [a.key]), ...(b.mergedFrom ?? [b.key])].sort((x, y) => x - y),
  };
}
