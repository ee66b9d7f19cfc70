/**
 * The task validity ledger in the browser (issue 29, item 4): a researcher flags a task from the player, every
 * analytics figure leaves its trajectories out and says how many, the one toggle counts them again, the trajectory
 * list hides them and marks them when shown, and the flag is cleared from the list's "Flag task…" link. Captured at
 * the three desktop sizes into test-results/screens/. The flag is cleared again at the end (a `valid` revision), so
 * later specs see every task counted.
 */
import { expect, test } from "./reused-page";
import { screenshotsAtDesktopSizes } from "./layout";
import { cleanAnalytics, seedAnalytics } from "./scripts";
import { mutation, query } from "./api";

const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(1)}%`);

interface Overview {
  trajectories: number;
  columns: { id: string; total: { n: number; rate: number | null } }[];
  flagged: { tasks: number; trajectories: number; included: boolean };
}

let target: { id: number; taskId: number };

test.describe("task validity ledger", () => {
  test.describe.configure({ mode: "serial" });
  test.beforeAll(() => seedAnalytics());
  test.afterAll(async ({ request }) => {
    // Whatever happened above, the task ends unflagged and the seeded campaign and judge are gone.
    if (target) await mutation(request, "tasks.flag", { taskId: target.taskId, status: "valid", reason: "e2e clean-up" });
    cleanAnalytics();
  });

  test("flagging a task from the player changes every figure; the toggle counts it again", async ({ page }) => {
    const list = await query<{ rows: { id: number; taskId: number }[] }>(page.request, "trajectories.list", { human: "failure" });
    target = list.rows[0]!;
    const before = await query<Overview>(page.request, "analytics.overview", {});
    expect(before.flagged.tasks).toBe(0);

    await page.goto(`/trajectories/${target.id}`);
    await page.getByTestId("flag-task").click();
    const dialog = page.getByTestId("flag-dialog");
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Status").selectOption("broken");
    await dialog.getByLabel("Reason").fill("The product page no longer exists");
    await dialog.getByLabel("Evidence").fill("https://example.org/issues/246");
    await screenshotsAtDesktopSizes(page, "task-flag-dialog");
    await dialog.getByTestId("flag-save").click();
    await expect(dialog.getByTestId("flag-history")).toContainText("The product page no longer exists");
    await dialog.getByRole("button", { name: "Close ✕" }).click();
    await expect(page.getByTestId("flag-task")).toHaveText("Flagged: broken");

    const after = await query<Overview>(page.request, "analytics.overview", {});
    expect(after.flagged).toMatchObject({ tasks: 1, included: false });
    expect(after.flagged.trajectories).toBeGreaterThan(0);
    expect(after.trajectories).toBe(before.trajectories - after.flagged.trajectories);
    const human = (o: Overview) => o.columns.find((c) => c.id === "human")!.total;
    expect(human(after).n).toBeLessThan(human(before).n);

    await page.goto("/analytics");
    const note = page.getByTestId("flagged-note");
    await expect(note).toHaveAttribute("data-included", "no");
    await expect(note.getByTestId("flagged-count")).toContainText(`${after.flagged.trajectories} trajector`);
    await expect(page.locator('[data-total="human"] [data-value]')).toHaveText(pct(human(after).rate));
    await screenshotsAtDesktopSizes(page, "task-flag-analytics-left-out");

    await note.getByTestId("flagged-toggle").uncheck();
    await expect(page).toHaveURL(/flagged=include/);
    await expect(page.getByTestId("flagged-note")).toHaveAttribute("data-included", "yes");
    await expect(page.locator('[data-total="human"] [data-value]')).toHaveText(pct(human(before).rate));
    await screenshotsAtDesktopSizes(page, "task-flag-analytics-included");

    await page.goto("/analytics/judges");
    await expect(page.getByTestId("flagged-note")).toHaveAttribute("data-included", "no");
    // The error analysis says what it left out too, with the count the API gives.
    await page.goto("/analytics/errors");
    const errorsNote = page.getByTestId("flagged-note");
    await expect(errorsNote).toHaveAttribute("data-included", "no");
    await expect(errorsNote.getByTestId("flagged-count")).toContainText(`${after.flagged.trajectories} trajector`);
  });

  test("the list leaves flagged tasks out, shows them on request, and clears the flag from a picked row", async ({ page }) => {
    await page.goto("/trajectories");
    const note = page.getByTestId("flagged-list-note");
    await expect(note).toContainText("left out");
    await note.getByRole("link", { name: "Only them" }).click();
    await expect(page).toHaveURL(/flagged=only/);
    const rows = page.getByTestId("trajectory-row");
    await expect(rows.first()).toBeVisible();
    await expect(page.getByTestId("task-flag-badge").first()).toHaveText("⚑ broken");
    expect(await rows.count()).toBe(await page.getByTestId("task-flag-badge").count());
    await screenshotsAtDesktopSizes(page, "task-flag-list");

    await page.goto(`/trajectories/${target.id}?flag=1`);
    const dialog = page.getByTestId("flag-dialog");
    await expect(dialog.getByTestId("flag-current")).toContainText("Flagged broken");
    await dialog.getByLabel("Status").selectOption("valid");
    await dialog.getByLabel("Reason").fill("The page is back");
    await dialog.getByTestId("flag-save").click();
    await expect(dialog.getByTestId("flag-current")).toContainText("cleared the flag");
    await expect(dialog.getByTestId("flag-history").locator("li")).toHaveCount(2);
    const overview = await query<Overview>(page.request, "analytics.overview", {});
    expect(overview.flagged.tasks).toBe(0);
  });
});
