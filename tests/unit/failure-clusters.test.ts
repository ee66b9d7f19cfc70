import { describe, expect, it } from "vitest";
import {
  candidateKs,
  clusterDocuments,
  definingTerms,
  mergeClusters,
  shareBy,
  termCounts,
  tfIdf,
  tokenize,
  type ClusterDocument,
  type SavedCluster,
} from "../../server/domain/analytics/failure-clusters";
import { createRng } from "../../server/domain/agreement/random";

describe("tokens", () => {
  it("drops stop words, URL boilerplate, one-letter tokens, element numbers and ids, and keeps HTTP statuses", () => {
    expect(tokenize("Clicked [12] on https://www.Shop.example/login?next=/cart: got a 403 Forbidden (req 9f86d081884c)")).toEqual([
      "clicked",
      "shop",
      "example",
      "login",
      "next",
      "cart",
      "got",
      "403",
      "forbidden",
      "req",
    ]);
    expect(tokenize("Écran « Vérifiez » x2")).toEqual(["écran", "vérifiez", "x2"]);
    expect(tokenize("")).toEqual([]);
  });

  it("counts words and the bigrams of adjacent kept words, never across two pieces", () => {
    const counts = termCounts(["the login wall today", "login wall"]);
    expect(Object.fromEntries(counts)).toEqual({ login: 2, wall: 2, today: 1, "login wall": 2, "wall today": 1 });
  });
});

describe("TF-IDF", () => {
  it("weighs (1 + ln count) × (1 + ln((1 + N)/(1 + df))), drops terms found in one document, and scales to length 1", () => {
    // N = 3. captcha, page, login: df 2 (idf 1 + ln 4/3); shared: df 3 (idf 1); alone: df 1 (dropped).
    const docs = [
      new Map([
        ["captcha", 2],
        ["page", 1],
        ["shared", 1],
        ["alone", 1],
      ]),
      new Map([
        ["captcha", 1],
        ["login", 1],
        ["shared", 1],
      ]),
      new Map([
        ["login", 1],
        ["page", 1],
        ["shared", 1],
      ]),
    ];
    const { terms, vectors } = tfIdf(docs);
    expect(terms).toEqual(["captcha", "login", "page", "shared"]);
    // Document 1: captcha (1 + ln 2)(1 + ln 4/3), page 1 + ln 4/3, shared 1.
    const idf = 1 + Math.log(4 / 3);
    const raw = [(1 + Math.log(2)) * idf, idf, 1];
    const norm = Math.hypot(...raw);
    expect([...vectors[0]!.index]).toEqual([0, 2, 3]);
    raw.forEach((w, i) => expect(vectors[0]!.value[i]).toBeCloseTo(w / norm, 12));
    expect([...vectors[1]!.value].map((v) => v * v).reduce((a, b) => a + b)).toBeCloseTo(1, 12);
  });
});

const captcha = ["A captcha appeared, verify you are human", "blocked by a captcha challenge"];
const login = ["The site asks to sign in: login wall", "login wall, password needed"];
const timeout = ["Page timeout while loading results", "navigation timeout, results never loaded"];

/** Nine failures in three kinds, in pieces as the service hands them over, and one whose only word no other has. */
function threeKinds(): ClusterDocument[] {
  return [
    { id: 11, texts: [...captcha, "page"] },
    { id: 4, texts: [captcha[0]!, "page"] },
    { id: 7, texts: [captcha[1]!, "captcha again", "page"] },
    { id: 2, texts: [...login, "page"] },
    { id: 9, texts: [login[0]!, "page"] },
    { id: 5, texts: [login[1]!, "sign in", "page"] },
    { id: 3, texts: [...timeout, "page"] },
    { id: 8, texts: [timeout[0]!, "page"] },
    { id: 6, texts: [timeout[1]!, "page"] },
    { id: 10, texts: ["nothing"] },
  ];
}

describe("clusters", () => {
  it("finds three clusters in three kinds of failure, with their terms, examples and the document with no term apart", () => {
    const r = clusterDocuments(threeKinds());
    expect(r.documents).toBe(10);
    expect(r.unclustered).toEqual([10]);
    expect(candidateKs(9)).toEqual([2, 3]);
    expect(r.chosenBy).toBe("silhouette");
    expect(r.k).toBe(3);
    expect(r.candidates.map((c) => c.k)).toEqual([2, 3]);
    expect(r.candidates[1]!.silhouette).toBeGreaterThan(r.candidates[0]!.silhouette);
    // Equal sizes: ordered by their lowest id.
    expect(r.clusters.map((c) => [...c.members].sort((a, b) => a - b))).toEqual([
      [2, 5, 9],
      [3, 6, 8],
      [4, 7, 11],
    ]);
    expect(r.clusters[0]!.terms.map((t) => t.term)).toContain("login wall");
    expect(r.clusters[1]!.terms.map((t) => t.term)).toContain("timeout");
    expect(r.clusters[2]!.terms[0]!.term).toBe("captcha");
    for (const c of r.clusters) {
      expect(c.similarity).toEqual([...c.similarity].sort((a, b) => b - a));
      expect(c.terms.every((t) => t.weight > 0)).toBe(true);
    }
  });

  it("gives the same clusters for the same input, run twice or shuffled", () => {
    const docs = threeKinds();
    const once = clusterDocuments(docs);
    expect(clusterDocuments(docs)).toEqual(once);
    expect(clusterDocuments([...docs].reverse())).toEqual(once);
    const rng = createRng(5);
    const corpus = generated(240, createRng(17));
    const reference = clusterDocuments(corpus);
    for (let i = 0; i < 3; i++) {
      const shuffled = [...corpus].sort(() => rng() - 0.5);
      expect(clusterDocuments(shuffled)).toEqual(reference);
    }
    expect(reference.clusters.reduce((s, c) => s + c.members.length, 0) + reference.unclustered.length).toBe(240);
  });

  it("takes k when given, and refuses a k out of range", () => {
    const r = clusterDocuments(threeKinds(), { k: 2 });
    expect(r).toMatchObject({ k: 2, chosenBy: "given" });
    expect(r.clusters).toHaveLength(2);
    expect(clusterDocuments(threeKinds(), { k: 1 }).clusters[0]!.members).toHaveLength(9);
    expect(() => clusterDocuments(threeKinds(), { k: 0 })).toThrow(/k: write a whole number/);
    expect(() => clusterDocuments(threeKinds(), { k: 13 })).toThrow(/k: write a whole number/);
    expect(r.requestedK).toBeUndefined();
    // More clusters asked for than documents: k becomes the number of documents, and the run says what was asked.
    const three = clusterDocuments(threeKinds().slice(0, 3), { k: 5 });
    expect(three).toMatchObject({ k: 3, chosenBy: "given", requestedK: 5 });
  });

  it("keeps too few documents in one cluster and an empty input empty", () => {
    const few = clusterDocuments(threeKinds().slice(0, 3));
    expect(few).toMatchObject({ k: 1, chosenBy: "too few" });
    expect(few.clusters[0]!.members.sort()).toEqual([11, 4, 7].sort());
    expect(clusterDocuments([])).toMatchObject({ k: 0, clusters: [], unclustered: [] });
  });

  it("reports progress over the ks it tries", () => {
    const seen: number[] = [];
    clusterDocuments(threeKinds(), { onProgress: (d) => seen.push(d) });
    expect(seen).toEqual([0.5, 1]);
  });
});

describe("shares and merges", () => {
  it("counts members per group, largest first", () => {
    expect(shareBy([1, 2, 3, 4], (id) => (id % 2 ? "shop" : "maps"))).toEqual([
      { name: "maps", n: 2 },
      { name: "shop", n: 2 },
    ]);
  });

  it("merges two clusters: members by similarity, shares added, mean weights by size", () => {
    const a: SavedCluster = {
      key: 1,
      name: null,
      members: [4, 7],
      similarity: [0.9, 0.5],
      terms: [],
      means: [
        { term: "captcha", mean: 0.6, overall: 0.2 },
        { term: "page", mean: 0.1, overall: 0.1 },
      ],
      bySite: [{ name: "shop", n: 2 }],
      byRun: [{ name: "A", n: 2 }],
    };
    const b: SavedCluster = {
      key: 3,
      name: "Bot checks",
      members: [5],
      similarity: [0.8],
      terms: [],
      means: [{ term: "verify", mean: 0.3, overall: 0.1 }],
      bySite: [{ name: "maps", n: 1 }],
      byRun: [{ name: "A", n: 1 }],
    };
    const m = mergeClusters(a, b, 4);
    expect(m.members).toEqual([4, 5, 7]);
    expect(m.name).toBe("Bot checks");
    expect(m.mergedFrom).toEqual([1, 3]);
    expect(m.byRun).toEqual([{ name: "A", n: 3 }]);
    expect(m.bySite).toEqual([
      { name: "shop", n: 2 },
      { name: "maps", n: 1 },
    ]);
    // captcha: 0.6·2/3 = 0.4, lift 0.2; verify: 0.3·1/3 = 0.1, lift 0; page: 0.1·2/3, lift < 0.
    expect(m.terms.map((t) => t.term)).toEqual(["captcha"]);
    expect(m.terms[0]!.weight).toBeCloseTo(0.2, 12);
    expect(definingTerms([{ term: "x", mean: 0.5, overall: 0.5 }])).toEqual([{ term: "x", weight: 0.5 }]);
  });
});

/** A seeded corpus of failures of five kinds, each piece drawn from its kind's words and some common ones. */
export function generated(n: number, rng: () => number): ClusterDocument[] {
  const kinds = [
    ["captcha", "verify", "human", "robot", "challenge"],
    ["login", "sign", "password", "account", "wall"],
    ["timeout", "loading", "slow", "spinner", "waited"],
    ["price", "wrong", "total", "cheapest", "sorted"],
    ["scroll", "loop", "repeated", "same", "stuck"],
  ];
  const common = ["page", "results", "button", "search", "item", "then", "clicked", "typed"];
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const kind = kinds[i % kinds.length]!;
    const texts = Array.from({ length: 4 }, () => Array.from({ length: 6 }, () => (rng() < 0.5 ? pick(kind) : pick(common))).join(" "));
    return { id: 1000 + i * 3, texts };
  });
}
