/**
 * Human annotation end to end: an annotator signs in and labels three trajectories from the keyboard alone
 * (including an undo), blind to the judge and the agent until they have labelled, addressing them by campaign
 * item number (never trajectory id); a researcher adjudicates a disagreement.
 * Campaigns and the disagreeing labels are set up through the same HTTP API the pages use.
 */
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { account, storageStateOf } from "./accounts";
import { loadFixtures } from "./fixtures";
import { apiAs, trpc } from "./api";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";

type Json = Record<string, unknown>;

async function userId(api: APIRequestContext): Promise<string> {
  return (await trpc<{ userId: string }>(api, "query", "accounts.me", undefined)).data.userId;
}

const counter = (page: Page) => page.getByTestId("step-counter");

test.describe.serial("human annotation", () => {
  let keyboardCampaign: number;
  let disputeCampaign: number;
  let ids: number[];
  /** Run names and models of the keyboard campaign's trajectories: none may reach the annotator's pages. */
  let agentNames: string[];

  test.beforeAll(async ({ baseURL }) => {
    ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const researcher = await apiAs("researcher", baseURL!);
    const [a1, a2, a3] = await Promise.all(
      (["annotator1", "annotator2", "annotator3"] as const).map(async (k) => {
        const api = await apiAs(k, baseURL!);
        const id = await userId(api);
        return { api, id };
      }),
    );
    const create = async (input: Json) => {
      const r = await trpc<{ id: number }>(researcher, "mutation", "campaigns.create", input);
      expect(r.status).toBe(200);
      return r.data.id;
    };
    agentNames = [];
    for (const id of ids.slice(0, 3)) {
      const run = (await trpc<{ run: { name: string; model: string | null } }>(researcher, "query", "trajectories.byId", { id })).data.run;
      agentNames.push(run.name, ...(run.model ? [run.model] : []));
    }
    keyboardCampaign = await create({
      name: "E2E keyboard labelling",
      trajectoryIds: ids.slice(0, 3),
      annotatorsPerItem: 1,
      blind: true,
      annotatorIds: [a1!.id],
    });
    disputeCampaign = await create({ name: "E2E adjudication", trajectoryIds: [ids[0]], annotatorsPerItem: 2, blind: true, annotatorIds: [a2!.id, a3!.id] });

    // Two annotators disagree on the one trajectory of the second campaign.
    // One trajectory: item 1.
    const submit = (api: APIRequestContext, v: Json) =>
      trpc(api, "mutation", "labelling.submit", { campaignId: disputeCampaign, itemNo: 1, idempotencyKey: `e2e-${Math.random().toString(36).slice(2)}`, ...v });
    expect((await submit(a2!.api, { verdict: "success", note: "The answer matches the reference." })).status).toBe(200);
    expect((await submit(a3!.api, { verdict: "failure", category: "hallucination", firstFailingStep: 1, note: "The price was never on screen." })).status).toBe(
      200,
    );
    await Promise.all([researcher.dispose(), a1!.api.dispose(), a2!.api.dispose(), a3!.api.dispose()]);
  });

  test.describe("signed out", () => {
    test.use({ storageState: { cookies: [], origins: [] } });

    test("pages send you to sign-in and the API refuses", async ({ page, request }) => {
      await page.goto("/campaigns");
      await expect(page).toHaveURL(/\/sign-in\?next=%2Fcampaigns$/);
      expect((await trpc(request, "query", "campaigns.list", undefined)).status).toBe(401);
      expect((await request.get(`/api/campaigns/1/labels?format=csv`)).status()).toBe(401);
    });
  });

  test.describe("annotator", () => {
    test.use({ storageState: { cookies: [], origins: [] } });

    test("signs in and labels three trajectories from the keyboard, blind to the judge until done", async ({ page, baseURL }) => {
      const me = account("annotator1");
      await page.goto("/annotate");
      await expect(page).toHaveURL(/\/sign-in/);
      await page.getByLabel("Email").fill(me.email);
      await page.getByLabel("Password").fill(me.password);
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("signed-in-user")).toHaveText(me.name);
      await expect(page.getByTestId(`campaign-card-${keyboardCampaign}`)).toContainText("3 left for you");

      // Blind at the API: before labelling, this annotator gets no verdicts for the campaign's trajectories.
      const blindCheck = await trpc(page.request, "query", "judge.verdicts.forTrajectory", { trajectoryId: ids[0] });
      expect(blindCheck.status).toBe(403);
      // Nor runs: the home page is their queue, and the runs API refuses them.
      await page.goto("/");
      await expect(page).toHaveURL(/\/annotate$/);
      expect((await trpc(page.request, "query", "runs.list", undefined)).status).toBe(403);
      // Their campaign's trajectories are not reachable by id while blind, only as items.
      expect((await trpc(page.request, "query", "trajectories.byId", { id: ids[0] })).status).toBe(403);

      await page.goto(`/annotate/${keyboardCampaign}`);
      const seen: number[] = [];
      const panel = page.getByTestId("label-panel");
      const status = page.getByTestId("label-status");
      const current = () => Number(new URL(page.url()).pathname.split("/").pop());
      // Submit & next changes the address as it puts the next item in place: a key pressed before that item's panel
      // is there lands on the one just submitted (seen once: "x" was lost and the submit found no verdict).
      const nextItem = async (previous: number) => {
        await expect.poll(current).not.toBe(previous);
        await expect(panel).toHaveAttribute("data-item-no", String(current()));
      };
      const verdictChosen = (name: RegExp) => expect(panel.getByRole("button", { name })).toHaveAttribute("aria-pressed", "true");

      // 1: a failure with a category, the first failing step marked on step 2, and a note.
      await expect(panel).toBeVisible();
      await expect(counter(page)).toHaveText(/^Step 1 of \d+$/);
      // Blind to the agent too: the header names no run or model.
      await expect(page.getByTestId("agent-hidden")).toHaveText("Agent hidden (blind)");
      const html = await page.content();
      for (const name of agentNames) expect(html, `the labelling page names ${name}`).not.toContain(name);
      seen.push(current());
      await screenshotAt(page, "annotate-label-empty", { width: 1280, height: 800 });
      await page.keyboard.press("x");
      await page.keyboard.press("2");
      await page.keyboard.press("ArrowRight");
      await expect(counter(page)).toHaveText(/^Step 2 of/);
      await page.keyboard.press("f");
      await expect(page.getByTestId("first-failing-step")).toHaveText("step 2");
      await page.keyboard.press("n");
      await page.keyboard.type("Clicked a box that does not match the target.");
      await screenshotAt(page, "annotate-label-filled", { width: 1280, height: 800 });
      await page.keyboard.press("Control+Enter");
      await nextItem(seen[0]!);

      // 2: a success.
      seen.push(current());
      await expect(panel).toBeVisible();
      await page.keyboard.press("s");
      await verdictChosen(/^Success/);
      await page.keyboard.press("Control+Enter");
      await nextItem(seen[1]!);

      // 3: a failure, then undo it from the keyboard, correct it and submit again.
      seen.push(current());
      await page.keyboard.press("x");
      await verdictChosen(/^Failure/);
      await page.keyboard.press("5");
      await page.keyboard.press("Control+Enter");
      await expect(page).toHaveURL(new RegExp(`/annotate/${keyboardCampaign}$`));
      await expect(page.getByTestId("my-labels")).toContainText("Your labels (3)");
      // The queue page has no panel; undo from the labelled trajectory.
      await page.goto(`/annotate/${keyboardCampaign}/${seen[2]}`);
      await expect(panel).toBeVisible();
      await page.keyboard.press("u");
      await expect(status).toContainText("Undone");
      await page.keyboard.press("1");
      await page.keyboard.press("Control+Enter");
      await expect(page).toHaveURL(new RegExp(`/annotate/${keyboardCampaign}$`));
      expect(new Set(seen).size).toBe(3);

      // Now labelled, the same verdict query is answered.
      const unblinded = await trpc<unknown[]>(page.request, "query", "judge.verdicts.forTrajectory", { trajectoryId: ids[0] });
      expect(unblinded.status).toBe(200);

      // What the researcher's export holds: exactly these three labels, with what was typed.
      const researcher = await apiAs("researcher", baseURL!);
      const exported = await researcher.get(`/api/campaigns/${keyboardCampaign}/labels?format=jsonl`);
      expect(exported.status()).toBe(200);
      const rows = (await exported.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Json)
        .filter((r) => r.kind === "annotation");
      await researcher.dispose();
      // The URLs held item numbers; the export gives each label's item number with its trajectory.
      const byTrajectory = new Map(rows.map((r) => [r.item_no as number, r]));
      expect(new Set(rows.map((r) => r.trajectory_id))).toEqual(new Set(ids.slice(0, 3)));
      expect(rows).toHaveLength(3);
      expect(byTrajectory.get(seen[0]!)).toMatchObject({
        annotator_name: me.name,
        verdict: "failure",
        category: "visual grounding issue",
        // The annotator marked "step 2" in the panel; the export says 2 as well.
        first_failing_step_number: 2,
        note: "Clicked a box that does not match the target.",
        revision: 1,
      });
      expect(byTrajectory.get(seen[0]!)!.steps_viewed_numbers).toEqual(expect.arrayContaining([1, 2]));
      expect(byTrajectory.get(seen[1]!)).toMatchObject({ verdict: "success", category: null, revision: 1 });
      // Submitted, undone (withdrawn), submitted again: revision 3 with the corrected category.
      expect(byTrajectory.get(seen[2]!)).toMatchObject({ verdict: "failure", category: "navigation stuck", revision: 3 });
      expect(Number(byTrajectory.get(seen[0]!)!.time_spent_ms)).toBeGreaterThan(0);
    });
  });

  test.describe("researcher", () => {
    test.use({ storageState: storageStateOf("researcher") });

    test("adjudicates a disagreement with both labels side by side", async ({ page }) => {
      await page.goto(`/campaigns/${disputeCampaign}`);
      await expect(page.getByTestId("annotator-progress")).toContainText(account("annotator2").name);
      await page.getByRole("link", { name: /Adjudicate \(1\)/ }).click();
      await expect(page.getByTestId("adjudication-queue")).toContainText("success");
      await expect(page.getByTestId("adjudication-queue")).toContainText("failure · hallucination");
      await page.getByRole("link", { name: "Adjudicate →" }).click();

      const cards = page.getByTestId("review-label");
      await expect(cards).toHaveCount(2);
      await expect(page.getByTestId("labels-side-by-side")).toContainText("The price was never on screen.");
      await expect(page.getByTestId("labels-side-by-side")).toContainText("The answer matches the reference.");
      await screenshotAt(page, "adjudicate-review", { width: 1280, height: 800 });
      // The review page fits the window like the labelling page: labels on top, the player with its filmstrip below.
      for (const size of VIEWPORTS) {
        await resizeTo(page, size);
        await expectCleanLayout(page, [page.getByTestId("labels-side-by-side"), page.getByTestId("filmstrip")]);
        const doc = await page.evaluate(() => ({ scroll: document.scrollingElement!.scrollHeight, inner: window.innerHeight }));
        expect(doc.scroll, `review page scrolls at ${size.width}×${size.height}`).toBeLessThanOrEqual(doc.inner);
        const strip = (await page.getByTestId("filmstrip").boundingBox())!;
        expect(strip.y + strip.height).toBeLessThanOrEqual(size.height + 0.5);
        await screenshotAt(page, "adjudicate-review-fit", size);
      }
      await resizeTo(page, { width: 1280, height: 800 });
      await cards
        .filter({ hasText: account("annotator3").name })
        .getByRole("button", { name: "Take this label" })
        .click();
      await page.getByLabel("Reason (required)").fill("Step 2 shows no price; the answer was invented.");
      await page.getByTestId("adjudicate").click();
      await expect(page).toHaveURL(new RegExp(`/campaigns/${disputeCampaign}/adjudicate\\?state=adjudicated$`));
      await expect(page.getByTestId("adjudication-queue")).toContainText("#" + ids[0]);

      const exported = await page.request.get(`/api/campaigns/${disputeCampaign}/labels?format=jsonl`);
      const rows = (await exported.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Json);
      expect(
        rows
          .filter((r) => r.kind === "annotation")
          .map((r) => r.verdict)
          .sort(),
      ).toEqual(["failure", "success"]);
      expect(rows.find((r) => r.kind === "consolidated")).toMatchObject({
        verdict: "failure",
        category: "hallucination",
        consolidation_method: "adjudicated",
        adjudicator: account("researcher").name,
        reason: "Step 2 shows no price; the answer was invented.",
      });
    });
  });
});
