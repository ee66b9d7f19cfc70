/**
 * Comment threads in Chromium (docs/guide/comments.md). A researcher presses `c` on step 2 of a trajectory, mentions
 * Mia (an annotator of an open campaign holding it) with the completion list, and sees the step's open-thread count
 * on the filmstrip; Mia sees the unread mention in the top bar, follows it from her account page to step 2 with the
 * comments showing; resolving the thread takes it out of the open counts. On the labelling page two annotators of one
 * blind item each write a comment and never see the other's, nor find each other through @ (the completion list and
 * the server both answer as if nobody had that handle). The panel and the inbox are captured at 1280×800, 1440×900
 * and 1920×1080 into test-results/screens/ and checked with tests/e2e/layout.ts.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { storageStateOf } from "./accounts";
import { expectCleanLayout, resizeTo, screenshotAt, DESKTOP_SIZES } from "./layout";
import { runScriptJson } from "./scripts";

interface Seeded {
  t1: number;
  t2: number;
  openCampaign: number;
  blindCampaign: number;
  states: Record<"mia" | "bea" | "ben", string>;
}

const QUESTION = "Why did it type here before the page had loaded?";
const BEA_NOTE = "Bea thinks the search box was the wrong one";
const BEN_NOTE = "Ben saw the results list load late";

let seeded: Seeded;

async function pageAs(browser: Browser, who: "researcher" | "mia" | "bea" | "ben"): Promise<Page> {
  const storageState = who === "researcher" ? storageStateOf("researcher") : seeded.states[who];
  const context = await browser.newContext({ storageState, viewport: DESKTOP_SIZES[0] });
  return context.newPage();
}

async function shoot(page: Page, name: string, regions: ReturnType<Page["getByTestId"]>[]) {
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page, regions);
    for (const r of regions) await expect(r).toBeInViewport();
    await screenshotAt(page, name, size);
  }
  await resizeTo(page, DESKTOP_SIZES[0]);
}

test.describe("comment threads", () => {
  test.describe.configure({ mode: "serial" });

  test.beforeAll(() => {
    seeded = runScriptJson<Seeded>("tests/e2e/comments-seed.ts", ["seed", "127.0.0.1"]);
  });
  test.afterAll(() => {
    runScriptJson("tests/e2e/comments-seed.ts", ["clean"]);
  });

  test("a researcher mentions an annotator on a step; she follows the mention there; resolving closes the thread", async ({ browser }) => {
    const rae = await pageAs(browser, "researcher");
    await rae.goto(`/trajectories/${seeded.t1}?step=2`);
    await expect(rae.getByTestId("step-counter")).toContainText("Step 2 of");
    await expect(rae.getByTestId("comment-count")).toHaveCount(0);
    // `c` opens the panel with the cursor in the comment box.
    await rae.keyboard.press("c");
    const panel = rae.getByTestId("comments-panel");
    await expect(panel).toBeVisible();
    await expect(panel.getByTestId("comments-step")).toContainText("No open thread on step 2.");
    const box = panel.getByTestId("comment-composer").getByTestId("comment-box");
    await expect(box).toBeFocused();
    // Typing never reaches the player: `j` and `k` in the text leave the step where it is.
    await rae.keyboard.type(`${QUESTION} @mia.me`);
    await expect(rae.getByTestId("step-counter")).toContainText("Step 2 of");
    const list = panel.getByTestId("mention-list");
    await expect(list).toContainText("@mia.mention");
    await expect(list).toContainText("Mia Mention");
    await rae.keyboard.press("Enter");
    await expect(box).toHaveValue(`${QUESTION} @mia.mention `);
    await rae.keyboard.type("can you look?");
    await rae.keyboard.press("Control+Enter");
    await expect(panel.getByTestId("comment-note")).toHaveText("1 person mentioned.");
    const thread = panel.getByTestId("comments-step").getByTestId("comment-thread");
    await expect(thread).toHaveCount(1);
    await expect(thread).toContainText(QUESTION);
    await expect(thread).toContainText("Rae Researcher (you)");
    // The step's open-thread count on the filmstrip and the header.
    const cell = rae.locator('[data-testid="filmstrip-step"][data-position="1"]');
    await expect(cell.getByTestId("comment-count")).toHaveText("1");
    await expect(cell).toHaveAttribute("aria-label", /\(1 open comment thread\)/);
    await expect(rae.locator('[data-testid="filmstrip-step"][data-position="0"]').getByTestId("comment-count")).toHaveCount(0);
    await expect(rae.getByTestId("comments-badge")).toHaveText("1");
    await shoot(rae, "comments-player", [panel, rae.getByTestId("toggle-comments"), rae.getByTestId("filmstrip")]);

    // On step 1 the thread is listed under "Open on other steps", and its button goes back to step 2.
    await rae.locator('[data-testid="filmstrip-step"][data-position="0"]').click();
    await expect(rae.getByTestId("step-counter")).toContainText("Step 1 of");
    await expect(panel.getByTestId("comments-step")).toContainText("No open thread on step 1.");
    await panel.getByTestId("comments-jump").click();
    await expect(rae.getByTestId("step-counter")).toContainText("Step 2 of");

    // Mia: the unread mention in the top bar, the inbox on her account page, the link to the step.
    const mia = await pageAs(browser, "mia");
    await mia.goto("/");
    await expect(mia.getByTestId("mentions-unread")).toHaveText("1");
    await mia.getByTestId("mentions-link").click();
    await expect(mia).toHaveURL(/\/account#mentions$/);
    const entry = mia.getByTestId("mention");
    await expect(entry).toHaveCount(1);
    await expect(entry).toContainText("Rae Researcher");
    await expect(entry).toContainText(`Step 2: ${QUESTION}`);
    await shoot(mia, "comments-inbox", [mia.getByTestId("mentions-inbox"), mia.getByTestId("mentions-link")]);
    await entry.getByTestId("mention-link").click();
    await expect(mia).toHaveURL(new RegExp(`/trajectories/${seeded.t1}\\?step=2&panel=comments`));
    await expect(mia.getByTestId("step-counter")).toContainText("Step 2 of");
    await expect(mia.getByTestId("comments-panel").getByTestId("comments-step")).toContainText(QUESTION);
    // Followed, the mention is read: the top bar's count goes.
    await expect(mia.getByTestId("mentions-unread")).toHaveCount(0);
    // Mia replies; an annotator's completion list holds researchers and admins only.
    await mia.getByTestId("comments-panel").getByRole("button", { name: "Reply" }).click();
    await mia.keyboard.type("@");
    await expect(mia.getByTestId("mention-list")).toContainText("@researcher");
    await expect(mia.getByTestId("mention-list")).not.toContainText("annotator");
    await mia.keyboard.press("Escape");
    await mia.keyboard.type(" it typed before the list appeared");
    await mia.keyboard.press("Control+Enter");
    await expect(mia.getByTestId("comment-reply")).toContainText("it typed before the list appeared");

    // Resolved, the thread leaves the open counts (filmstrip, header, panel) and is shown only on request.
    await rae.reload();
    // A key pressed before the reloaded page listens is lost: press `c` until the panel is open (never once it is,
    // since `c` also closes it).
    await expect(async () => {
      if (!(await panel.isVisible())) await rae.keyboard.press("c");
      await expect(thread.getByTestId("comment-reply")).toContainText("it typed before the list appeared", { timeout: 3_000 });
    }).toPass({ timeout: 60_000 });
    await thread.getByRole("button", { name: "Resolve" }).click();
    await expect(panel.getByTestId("comments-open-count")).toHaveText("0 open");
    await expect(cell.getByTestId("comment-count")).toHaveCount(0);
    await expect(rae.getByTestId("comments-badge")).toHaveCount(0);
    await expect(thread).toHaveCount(0);
    await panel.getByRole("button", { name: "Show 1 resolved thread" }).click();
    await expect(thread).toContainText("Resolved by Rae Researcher");
    await thread.getByRole("button", { name: "Reopen" }).click();
    await expect(cell.getByTestId("comment-count")).toHaveText("1");
  });

  test("two annotators of one blind item never see each other's comments", async ({ browser }) => {
    const item = `/annotate/${seeded.blindCampaign}/1`;
    const bea = await pageAs(browser, "bea");
    await bea.goto(item);
    await expect(bea.getByTestId("label-panel")).toBeVisible();
    await bea.keyboard.press("c");
    await expect(bea.getByTestId("comment-box").first()).toBeFocused();
    // `s` and `x` typed in the box are text, not verdicts; Ctrl+Enter posts the comment, not the label.
    await bea.keyboard.type(BEA_NOTE);
    await bea.keyboard.press("Control+Enter");
    const beaPanel = bea.getByTestId("comments-panel");
    await expect(beaPanel.getByTestId("comment-thread")).toContainText(BEA_NOTE);
    await expect(bea).toHaveURL(new RegExp(`${item}(\\?|$)`));
    await expect(bea.getByTestId("label-panel").getByRole("button", { name: /^Success/ })).toHaveAttribute("aria-pressed", "false");
    await shoot(bea, "comments-labelling", [beaPanel, bea.getByTestId("label-panel")]);

    const ben = await pageAs(browser, "ben");
    await ben.goto(item);
    await ben.keyboard.press("c");
    const benPanel = ben.getByTestId("comments-panel");
    await expect(benPanel.getByTestId("comments-step")).toContainText("No open thread on step 1.");
    await expect(ben.locator("body")).not.toContainText(BEA_NOTE);
    await expect(ben.getByTestId("comments-badge")).toHaveCount(0);
    // Bea cannot be found through @ either: not in the list, and the server tells Ben nobody matched.
    await ben.keyboard.type("@bea");
    await expect(ben.getByTestId("mention-list")).toHaveCount(0);
    await ben.keyboard.type(` ${BEN_NOTE}`);
    await ben.keyboard.press("Control+Enter");
    await expect(benPanel.getByTestId("comment-note")).toHaveText("No one here matches @bea: nobody was told.");
    await expect(benPanel.getByTestId("comment-thread")).toContainText(BEN_NOTE);
    await expect(ben.locator("body")).not.toContainText(BEA_NOTE);

    await bea.reload();
    await bea.keyboard.press("c");
    await expect(beaPanel.getByTestId("comment-thread")).toHaveCount(1);
    await expect(beaPanel.getByTestId("comment-thread")).toContainText(BEA_NOTE);
    await expect(bea.locator("body")).not.toContainText(BEN_NOTE);
  });
});
