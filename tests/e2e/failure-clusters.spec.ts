/**
 * Failure clusters (issue 29, item 2) on the e2e trajectories with the seeded campaign and judge (analytics-seed.ts):
 * a researcher opens the tab, computes the clusters of the human failures through a worker, reads each cluster as the
 * API gives it, names one, merges two, opens one as a list slice; a slice without failures shows the empty state;
 * annotators get the 403 page. Captured at the three desktop sizes into test-results/screens/.
 */
import { expect, test, type APIRequestContext } from "./reused-page";
import { storageStateOf } from "./accounts";
import { screenshotsAtDesktopSizes } from "./layout";
import { cleanAnalytics, seedAnalytics } from "./scripts";

interface Run {
  documents: number;
  clusters: { key: number; name: string | null; size: number; members: number[] }[];
}

async function savedRun(request: APIRequestContext, id: number): Promise<Run> {
  const res = await request.get(`/api/trpc/analytics.clusterRun?input=${encodeURIComponent(JSON.stringify({ json: { id } }))}`);
  expect(res.ok(), `analytics.clusterRun: HTTP ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()).result.data.json as Run;
}

test.describe("failure clusters", () => {
  test.describe.configure({ mode: "serial" });
  test.beforeAll(() => seedAnalytics());
  test.afterAll(() => cleanAnalytics());

  test("computes the human failures' clusters through a worker, shows them as the API does, names, merges and opens one as a list", async ({ page }) => {
    await page.goto("/analytics");
    await page.getByRole("link", { name: "Failure clusters" }).click();
    await expect(page.getByRole("heading", { name: "Failure clusters" })).toBeVisible();
    await expect(page.getByTestId("cluster-slice")).toContainText("failed by the human label among all trajectories");
    await page.getByLabel("Number of clusters").selectOption("3");
    await page.getByRole("button", { name: "Find clusters" }).click();
    await expect(page).toHaveURL(/\/analytics\/clusters\?saved=\d+$/, { timeout: 30_000 });
    const runId = Number(new URL(page.url()).searchParams.get("saved"));
    const run = await savedRun(page.request, runId);
    expect(run.documents).toBeGreaterThan(3);
    const cards = page.locator("article[data-cluster]");
    await expect(cards).toHaveCount(run.clusters.length);
    for (const c of run.clusters) {
      await expect(page.locator(`article[data-cluster="${c.key}"] [data-testid="cluster-size"]`)).toContainText(`${c.size} failure`);
    }
    await expect(page.getByTestId("cluster-summary")).toContainText(`${run.documents} failures in ${run.clusters.length} clusters, k as asked`);
    await screenshotsAtDesktopSizes(page, "failure-clusters", [cards.first()]);

    // Name the first cluster.
    const first = run.clusters[0]!;
    await page.getByRole("button", { name: `Name cluster ${first.key}` }).click();
    await page.getByLabel(`Name of cluster ${first.key}`).fill("Wrong item picked");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.locator(`article[data-cluster="${first.key}"] h3`)).toHaveText("Wrong item picked");

    // Merge the second into the first: one card fewer, the sizes added, the name kept.
    const second = run.clusters[1]!;
    await page.getByLabel(`Merge into cluster ${first.key}`).selectOption(String(second.key));
    await page.locator(`article[data-cluster="${first.key}"]`).getByRole("button", { name: "Merge" }).click();
    await expect(cards).toHaveCount(run.clusters.length - 1);
    const merged = (await savedRun(page.request, runId)).clusters.find((c) => c.name === "Wrong item picked")!;
    expect(merged.size).toBe(first.size + second.size);
    const size = page.locator(`article[data-cluster="${merged.key}"] [data-testid="cluster-size"]`);
    await expect(size).toContainText(`${merged.size} failures · `);
    await expect(size).toContainText(`merged from #${Math.min(first.key, second.key)}, #${Math.max(first.key, second.key)}`);
    await screenshotsAtDesktopSizes(page, "failure-clusters-merged");

    // The merged cluster as a trajectory-list slice.
    await page.locator(`article[data-cluster="${merged.key}"]`).getByRole("link", { name: "Open as list" }).click();
    await expect(page).toHaveURL(/\/trajectories\?ids=/);
    await expect(page.getByTestId("match-count")).toContainText(`(limited to ${merged.size} chosen trajector`);
  });

  test("a slice without failures shows the empty state", async ({ page }) => {
    await page.goto("/analytics/clusters?search=zzqqnothingmatches");
    await expect(page.getByTestId("cluster-slice")).toContainText("search=zzqqnothingmatches");
    await page.getByRole("button", { name: "Find clusters" }).click();
    await expect(page.getByRole("heading", { name: "No failures in this slice" })).toBeVisible({ timeout: 30_000 });
    // The run's summary line says the same, not "0 failures in 0 clusters".
    await expect(page.getByTestId("cluster-summary")).toContainText("No failures in this slice");
    await expect(page.getByTestId("cluster-summary")).not.toContainText("0 clusters");
    await screenshotsAtDesktopSizes(page, "failure-clusters-empty");
  });

  test.describe("annotators", () => {
    test.use({ storageState: storageStateOf("annotator3") });
    test("get the 403 page", async ({ page }) => {
      const response = await page.goto("/analytics/clusters");
      expect(response?.status()).toBe(403);
      await expect(page.getByTestId("forbidden")).toContainText("This page is for researchers and admins");
    });
  });
});
