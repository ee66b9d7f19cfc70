/**
 * The Online-Mind2Web protocol in one journey, in Chromium: a researcher creates a campaign from the template
 * (three annotators, one annotator designated QA reviewer), marks a gold item and mixes gold into the queues;
 * the three annotators label (one on the labelling page, two through the API the page uses), one of them gets
 * the gold item wrong and the annotator quality page shows it; an item ends disputed; the QA reviewer resolves it
 * on the QA page, from the keyboard; a plain annotator cannot open that page; the researcher exports
 * human_label.json and the file holds the QA reviewer's 0/1/2 label for that task.
 */
import { expect, test } from "./reused-page";
import { storageStateOf } from "./accounts";
import { loadFixtures } from "./fixtures";
import { apiAs, trpc } from "./api";
import { screenshotsAtDesktopSizes } from "./layout";

test.describe.serial("Online-Mind2Web journey", () => {
  let campaignId: number;
  let goldTrajectory: number;
  let goldItemNo: number;
  let disputedItemNo: number;

  test.describe("researcher sets up", () => {
    test.use({ storageState: storageStateOf("researcher") });
    test("creates the campaign from the template, with a QA reviewer, and marks a gold item", async ({ page, baseURL }) => {
      await page.goto("/campaigns/new");
      await page.getByRole("radio", { name: /Online-Mind2Web/ }).check();
      await expect(page.locator('input[name="qaReview"]')).toBeChecked();
      await page.locator('input[name="name"]').fill(`OM2W journey ${Date.now()}`);
      // Quinn reviews QA and labels nothing: off the annotators, on the QA reviewers.
      await page.getByRole("checkbox", { name: "Quinn QA (annotator)", exact: true }).uncheck();
      await page.getByRole("checkbox", { name: "QA reviewer Quinn QA" }).check();
      await page.getByRole("button", { name: /Create campaign over/ }).click();
      await page.waitForURL(/\/campaigns\/\d+$/);
      campaignId = Number(new URL(page.url()).pathname.split("/").pop());
      await expect(page.getByTestId("protocol-compliance")).toContainText("Online-Mind2Web");
      await expect(page.getByTestId("qa-page-link")).toBeVisible();

      // The gold item: the campaign's first trajectory, marked on the campaign page with its known answer.
      // The campaign holds every imported trajectory (no filter); the first imported one becomes gold.
      goldTrajectory = Math.min(...Object.values(loadFixtures().trajectories));
      const form = page.getByRole("form", { name: "Mark a trajectory as gold" });
      await form.getByLabel("Trajectory id").fill(String(goldTrajectory));
      await form.getByLabel("Known answer").selectOption("success");
      await form.getByRole("button", { name: "Mark gold" }).click();
      await expect(page.getByTestId("gold-items")).toContainText("success");
      const researcher = await apiAs("researcher", baseURL!);
      // Gold first in every queue, warn below 80 % (no block, so the journey goes on).
      expect(
        (
          await trpc(researcher, "mutation", "quality.updateSettings", {
            campaignId,
            goldRate: 1,
            goldWarnBelow: 0.8,
            goldBlockBelow: null,
            goldMinAnswered: 1,
          })
        ).status,
      ).toBe(200);
      await researcher.dispose();
    });
  });

  test.describe("annotator on the labelling page", () => {
    test.use({ storageState: storageStateOf("annotator1") });
    test("labels the gold item and the next one from the keyboard", async ({ page }) => {
      await page.goto(`/annotate/${campaignId}`);
      const panel = page.getByTestId("label-panel");
      await expect(panel).toBeVisible();
      const current = () => Number(new URL(page.url()).pathname.split("/").pop());
      goldItemNo = current();
      await page.keyboard.press("s");
      await screenshotsAtDesktopSizes(page, "om2w-journey-labelling");
      await page.keyboard.press("Control+Enter");
      await expect.poll(current).not.toBe(goldItemNo);
      disputedItemNo = current();
      await page.keyboard.press("s");
      await page.keyboard.press("Control+Enter");
      await expect.poll(current).not.toBe(disputedItemNo);
    });
  });

  test.describe("two more annotators", () => {
    test("label through the API; Cy gets the gold item wrong and disagrees on the next", async ({ baseURL }) => {
      for (const [who, verdict] of [
        ["annotator2", "success"],
        ["annotator3", "failure"],
      ] as const) {
        const api = await apiAs(who, baseURL!);
        const next = await trpc<{ itemNo: number }>(api, "mutation", "labelling.next", { campaignId });
        expect(next.status).toBe(200);
        expect(next.data.itemNo, "gold is handed out first").toBe(goldItemNo);
        const failure = { verdict: "failure", category: "wrong navigation", firstFailingStep: 0, note: `${who}: opened the wrong page` };
        for (const itemNo of [goldItemNo, disputedItemNo]) {
          const r = await trpc(api, "mutation", "labelling.submit", {
            campaignId,
            itemNo,
            ...(verdict === "failure" ? failure : { verdict: "success" }),
            timeSpentMs: 30_000,
            idempotencyKey: `om2w-journey-${who}-${itemNo}-${Date.now()}`,
          });
          expect(r.status, `${who} labels item ${itemNo}`).toBe(200);
        }
        await api.dispose();
      }
    });
  });

  test.describe("researcher checks quality", () => {
    test.use({ storageState: storageStateOf("researcher") });
    test("the annotator quality page shows the wrong gold answer", async ({ page }) => {
      await page.goto(`/analytics/humans/annotators?campaign=${campaignId}`);
      // The annotators table (one row per annotator; the κ table below pairs them).
      const annotatorRow = (name: string) => page.locator('tr[data-row^="user:"]').filter({ hasText: name });
      await expect(annotatorRow("Cy Three")).toContainText("0/1");
      await expect(annotatorRow("Cy Three")).toContainText("warn");
      await expect(annotatorRow("Ann One")).toContainText("1/1");
      await expect(page.getByText("Cy Three: warn")).toBeVisible();
    });
  });

  for (const role of ["researcher", "admin"] as const) {
    test.describe(`the QA list as ${role === "admin" ? "an" : "a"} ${role}`, () => {
      test.use({ storageState: storageStateOf(role) });
      test("opens, and points to the adjudication page for campaigns they do not review", async ({ page }) => {
        expect((await page.goto("/qa"))?.status()).toBe(200);
        await expect(page.getByRole("heading", { name: "QA review", exact: true })).toBeVisible();
        await expect(page.getByText("You are not a QA reviewer of any campaign")).toBeVisible();
        await expect(page.getByRole("link", { name: "adjudication page" })).toHaveAttribute("href", "/campaigns");
        await screenshotsAtDesktopSizes(page, `om2w-journey-qa-home-${role}`);
      });
    });
  }

  test.describe("a plain annotator", () => {
    test.use({ storageState: storageStateOf("annotator1") });
    test("cannot open the QA page nor call its API, and has no QA link", async ({ page, baseURL }) => {
      expect((await page.goto(`/qa/${campaignId}`))?.status()).toBe(403);
      const res = await page.goto(`/qa/${campaignId}/${disputedItemNo}`);
      expect(res?.status()).toBe(403);
      await expect(page.getByTestId("forbidden")).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "QA review" })).toHaveCount(0);
      const api = await apiAs("annotator1", baseURL!);
      expect((await trpc(api, "query", "qa.item", { campaignId, itemNo: disputedItemNo })).status).toBe(403);
      expect(
        (
          await trpc(api, "mutation", "qa.submit", {
            campaignId,
            itemNo: disputedItemNo,
            decision: "corrected",
            verdict: "success",
            reason: "x",
            disagreementSource: "edge_case",
          })
        ).status,
      ).toBe(403);
      await api.dispose();
    });
  });

  test.describe("QA reviewer", () => {
    test.use({ storageState: storageStateOf("qa1") });
    test("resolves the disputed item on the QA page from the keyboard", async ({ page }) => {
      await page.goto("/annotate");
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "QA review" }).click();
      await page.waitForURL(/\/qa$/);
      await expect(page.getByTestId(`qa-campaign-${campaignId}`)).toContainText(/[1-9]\d* items? waiting for QA/);
      await screenshotsAtDesktopSizes(page, "om2w-journey-qa-home");
      await page.getByTestId(`qa-campaign-${campaignId}`).getByRole("link", { name: "Open the QA queue" }).click();
      await expect(page.getByTestId("qa-queue")).toBeVisible();
      // The row whose item cell is exactly "#15": matching the row's text would also take "#1" for "#17", or miss
      // "#15" when the task id after it begins with a digit (the row's text runs its cells together).
      const itemCell = page.getByText(`#${disputedItemNo}`, { exact: true });
      const row = page.getByTestId("qa-queue-row").filter({ has: itemCell });
      await expect(row).toContainText("disputed");
      await row.getByRole("link", { name: "Review →" }).click();
      await page.waitForURL(new RegExp(`/qa/${campaignId}/${disputedItemNo}$`));
      await expect(page.getByTestId("qa-label")).toHaveCount(3);
      await expect(page.getByTestId("qa-labels")).toContainText("annotator3: opened the wrong page");
      await expect(page.getByTestId("qa-disputed")).toBeVisible();
      // Never the agent: the player's header names no run.
      await expect(page.getByText("Agent hidden (blind)").first()).toBeVisible();

      await page.keyboard.press("s");
      await expect(page.getByTestId("qa-panel").getByRole("button", { name: /success/ })).toHaveAttribute("aria-pressed", "true");
      await page.keyboard.press("d");
      await page.keyboard.press("d");
      await page.keyboard.press("d");
      await expect(page.getByTestId("qa-source")).toHaveValue("annotator_error");
      await page.keyboard.press("c");
      await page.keyboard.press("c");
      await page.keyboard.press("c");
      await expect(page.getByTestId("qa-confidence")).toHaveValue("high");
      await page.keyboard.press("n");
      await page.keyboard.type("The final page shows the requested result; the failure label misread step 1.");
      await screenshotsAtDesktopSizes(page, "om2w-journey-qa");
      // Wait for the decision to be stored before leaving the page: the address check alone once passed before the
      // request was even sent, and the navigation below then cancelled it.
      const submitted = page.waitForResponse((r) => r.url().includes("/api/trpc/qa.submit") && r.request().method() === "POST");
      await page.keyboard.press("Control+Enter");
      expect((await submitted).ok()).toBe(true);
      await expect(page).not.toHaveURL(new RegExp(`/qa/${campaignId}/${disputedItemNo}(\\?|$)`));
      await page.goto(`/qa/${campaignId}?status=done`);
      await expect(page.getByTestId("qa-queue-row").filter({ has: itemCell })).toBeVisible();
      await screenshotsAtDesktopSizes(page, "om2w-journey-qa-queue");
    });
  });

  test.describe("researcher exports", () => {
    test("human_label.json holds 0/1/2 labels, the QA reviewer's for the disputed task", async ({ baseURL }) => {
      const researcher = await apiAs("researcher", baseURL!);
      const done = await trpc<{ items: { itemNo: number; externalTaskId: string; state: string }[] }>(researcher, "query", "qa.queue", {
        campaignId,
        status: "done",
      });
      expect(done.status).toBe(200);
      const resolved = done.data.items.find((i) => i.itemNo === disputedItemNo)!;
      expect(resolved.state).toBe("adjudicated");
      const res = await researcher.get(`/api/campaigns/${campaignId}/labels?format=online-mind2web`);
      expect(res.status()).toBe(200);
      expect(res.headers()["content-disposition"]).toContain("human_label.json");
      const file = (await res.json()) as Record<string, string>[];
      expect(Array.isArray(file)).toBe(true);
      const row = file.find((r) => r.task_id === resolved.externalTaskId)!;
      expect(row, `task ${resolved.externalTaskId} in human_label.json`).toBeTruthy();
      const labels = Object.entries(row).filter(([k]) => k.endsWith("_human_label"));
      expect(labels.length).toBeGreaterThan(0);
      for (const r of file) for (const [k, v] of Object.entries(r)) if (k.endsWith("_human_label")) expect(["0", "1", "2"]).toContain(v);
      // The QA reviewer decided success: "1".
      expect(labels.map(([, v]) => v)).toContain("1");
      await researcher.dispose();
    });
  });
});
