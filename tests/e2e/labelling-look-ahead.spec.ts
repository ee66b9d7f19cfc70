/**
 * Submit & next with the next item made ready ahead (issue 30, item 7): while an item is labelled, the page looks
 * ahead to the item the server would hand out next, and when the submit hands out that item it shows at once, with
 * no page or RSC request. Counted with Playwright at each desktop size; then Undo from the item shown in place
 * reverts the submit just made, Back and Forward move between the two items, and when someone else takes the item
 * looked ahead to, Submit & next still goes to the item the server handed out (the usual navigation); when the server
 * refuses the label, the page comes back to the item submitted with its values and the reason.
 */
import { expect, test, type APIRequestContext, type Page, type Request, type Response } from "./reused-page";
import { storageStateOf } from "./accounts";
import { apiAs, mutation, query, trpc } from "./api";
import { loadFixtures } from "./fixtures";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";

test.use({ storageState: storageStateOf("annotator2") });

const current = (page: Page) => Number(new URL(page.url()).pathname.split("/").pop());

/**
 * Page loads and RSC payloads requested from now on (what a navigation asks of the server). Link prefetches (the new
 * item's header links, fetched in the background) are not a navigation and are left out.
 */
function countNavigations(page: Page) {
  const seen: string[] = [];
  const listener = (r: Request) => {
    const u = new URL(r.url());
    if (r.headers()["next-router-prefetch"]) return;
    if (r.resourceType() === "document") seen.push(`document ${u.pathname}`);
    else if (u.searchParams.has("_rsc") || r.headers()["rsc"] === "1") seen.push(`rsc ${u.pathname}`);
  };
  page.on("request", listener);
  return { seen, stop: () => page.off("request", listener) };
}

/** The item a Submit & next's answer hands out (the page's tRPC calls are batched: an array of answers). */
async function nextHandedOut(r: Response): Promise<number | null> {
  const body = (await r.json()) as { result: { data: { json: { next?: { itemNo: number } | null } } } }[];
  return body[0]!.result.data.json.next?.itemNo ?? null;
}

/** Opens the campaign's queue (which hands out and opens an item) and waits for the look-ahead from that item. */
async function openFirstItem(page: Page, campaignId: number): Promise<number> {
  const lookAhead = page.waitForResponse((r) => r.url().includes("labelling.lookAhead"));
  await page.goto(`/annotate/${campaignId}`);
  await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}/\\d+`));
  await expect(page.getByTestId("label-panel")).toBeVisible();
  expect((await lookAhead).ok()).toBe(true);
  return current(page);
}

/** The next item is on screen: the address names it, its panel and first step show, its screenshot is decoded. */
async function expectItemShown(page: Page, campaignId: number, itemNo: number) {
  await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}/${itemNo}(\\?|$)`));
  await expect(page.getByTestId("label-panel")).toHaveAttribute("data-item-no", String(itemNo));
  await expect(page.getByTestId("step-counter")).toHaveText(/^Step 1 of \d+$/);
  await expect.poll(() => page.getByTestId("step-image").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
}

test.describe.serial("labelling: Submit & next with the next item ready ahead", () => {
  let researcher: APIRequestContext;
  let ids: number[];
  const campaigns: number[] = [];

  test.beforeAll(async ({ baseURL }) => {
    ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    researcher = await apiAs("researcher", baseURL!);
    const people: string[] = [];
    for (const key of ["annotator2", "annotator3"] as const) {
      const api = await apiAs(key, baseURL!);
      people.push((await query<{ userId: string }>(api, "accounts.me")).userId);
      await api.dispose();
    }
    // One campaign per size, one where a second annotator takes the item looked ahead to, and one closed meanwhile.
    for (const [i, name] of [...VIEWPORTS.map((v) => `${v.width}×${v.height}`), "taken", "refused"].entries()) {
      const { id } = await mutation<{ id: number }>(researcher, "campaigns.create", {
        name: `E2E look-ahead ${name}`,
        trajectoryIds: ids.slice(0, 3),
        annotatorsPerItem: 1,
        blind: true,
        annotatorIds: i === VIEWPORTS.length ? people : [people[0]],
      });
      campaigns.push(id);
    }
  });
  test.afterAll(async () => {
    await researcher?.dispose();
  });

  for (const [i, size] of VIEWPORTS.entries()) {
    test(`shows the item looked ahead to without a page or RSC request, at ${size.width}×${size.height}`, async ({ page }) => {
      const campaignId = campaigns[i]!;
      await resizeTo(page, size);
      const first = await openFirstItem(page, campaignId);
      // What the look-ahead names (a read: asking again reserves nothing and answers the same).
      const ahead = (await query<{ itemNo: number } | null>(page.request, "labelling.lookAhead", { campaignId, itemNo: first }))!;
      expect(ahead.itemNo).not.toBe(first);

      const nav = countNavigations(page);
      const submitted = page.waitForResponse((r) => r.url().includes("labelling.submit"));
      await page.keyboard.press("s");
      await expect(page.getByTestId("label-panel").getByRole("button", { name: /^Success/ })).toHaveAttribute("aria-pressed", "true");
      await page.keyboard.press("Control+Enter");
      // The server handed out the item looked ahead to ...
      expect(await nextHandedOut(await submitted)).toBe(ahead.itemNo);
      // ... and it shows without asking the server for a page.
      await expectItemShown(page, campaignId, ahead.itemNo);
      nav.stop();
      expect(nav.seen).toEqual([]);
      await expect(page.getByTestId("label-panel").getByRole("button", { name: /^Success/ })).toHaveAttribute("aria-pressed", "false");
      await expectCleanLayout(page, [page.getByTestId("label-panel"), page.getByTestId("step-image")]);
      await screenshotAt(page, "labelling-look-ahead-next", size);

      if (i === 0) {
        // Back shows the labelled item again, Forward the one shown in place.
        await page.goBack();
        await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}/${first}(\\?|$)`));
        await expect(page.getByTestId("label-panel")).toBeVisible();
        // With the label just submitted in the form (the page first has the copy cached before that submit), and no
        // draft of unsaved edits kept for it.
        await expect(page.getByTestId("label-panel").getByRole("button", { name: /^Success/ })).toHaveAttribute("aria-pressed", "true");
        expect(await page.evaluate(() => Object.keys(window.localStorage).filter((k) => k.includes("draft")))).toEqual([]);
        await page.goForward();
        await expectItemShown(page, campaignId, ahead.itemNo);
      }
      // Undo from the item shown in place reverts the submit just made, and reopens that item with its values.
      await page.keyboard.press("u");
      await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}/${first}\\?undone=1`));
      await expect(page.getByTestId("label-status")).toContainText("Your last submit was undone");
      await expect(page.getByTestId("label-panel").getByRole("button", { name: /^Success/ })).toHaveAttribute("aria-pressed", "true");
      const mine = await query<{ label: unknown }>(page.request, "labelling.mine", { campaignId, itemNo: first });
      expect(mine.label).toBeNull();
    });
  }

  test("goes to the item the server hands out when someone else took the one looked ahead to", async ({ page, baseURL }) => {
    const campaignId = campaigns[3]!;
    await resizeTo(page, VIEWPORTS[0]);
    const first = await openFirstItem(page, campaignId);
    const ahead = (await query<{ itemNo: number } | null>(page.request, "labelling.lookAhead", { campaignId, itemNo: first }))!;
    // Another annotator labels that item meanwhile (k = 1: it is full now), through the campaign's API.
    const other = await apiAs("annotator3", baseURL!);
    const taken = await trpc(other, "mutation", "labelling.submit", {
      campaignId,
      itemNo: ahead.itemNo,
      verdict: "success",
      idempotencyKey: `e2e-ahead-${Date.now()}`,
    });
    expect(taken.status).toBe(200);
    await other.dispose();

    const submitted = page.waitForResponse((r) => r.url().includes("labelling.submit"));
    await page.keyboard.press("s");
    await expect(page.getByTestId("label-panel").getByRole("button", { name: /^Success/ })).toHaveAttribute("aria-pressed", "true");
    await page.keyboard.press("Control+Enter");
    const next = (await nextHandedOut(await submitted))!;
    expect([first, ahead.itemNo]).not.toContain(next);
    await expectItemShown(page, campaignId, next);
  });

  test("comes back to the item submitted, its values in the form and the server's reason, when the label is refused", async ({ page }) => {
    // The next item shows as soon as Submit & next is sent; the server's answer comes after. Here it refuses: the
    // researcher closed the campaign meanwhile.
    const campaignId = campaigns[4]!;
    await resizeTo(page, VIEWPORTS[0]);
    const first = await openFirstItem(page, campaignId);
    expect((await trpc(researcher, "mutation", "campaigns.update", { id: campaignId, status: "closed" })).status).toBe(200);
    const submitted = page.waitForResponse((r) => r.url().includes("labelling.submit"));
    await page.keyboard.press("x");
    await page.keyboard.press("1");
    await expect(page.getByTestId("label-panel").getByRole("button", { name: /^Failure/ })).toHaveAttribute("aria-pressed", "true");
    await page.keyboard.press("Control+Enter");
    expect((await submitted).ok()).toBe(false);
    await expect(page).toHaveURL(new RegExp(`/annotate/${campaignId}/${first}(\\?|$)`));
    const panel = page.getByTestId("label-panel");
    await expect(panel).toHaveAttribute("data-item-no", String(first));
    await expect(page.getByTestId("label-status")).toContainText("is closed");
    // The values submitted are back (the draft kept in the browser), and nothing was stored.
    await expect(panel.getByRole("button", { name: /^Failure/ })).toHaveAttribute("aria-pressed", "true");
    expect((await query<{ label: unknown }>(page.request, "labelling.mine", { campaignId, itemNo: first })).label).toBeNull();
    await screenshotAt(page, "labelling-look-ahead-refused", VIEWPORTS[0]);
  });
});
