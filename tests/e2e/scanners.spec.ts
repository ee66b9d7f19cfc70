/**
 * Scanners (issue 29, item 3) in the browser, over the e2e trajectories and the seeded campaign (analytics-seed.ts,
 * whose consolidated labels give some failures the category "navigation stuck"): a researcher's scanner refused
 * with the reason beside its pattern, then saved; a run queued and done by the server's worker with its progress
 * and report; the scanner's page with precision and recall against those labels; a matched step opened in the
 * player with its marker and matched text; the list's `scanner:` search. Captured at the three desktop sizes.
 */
import { expect, test } from "./reused-page";
import { screenshotsAtDesktopSizes } from "./layout";
import { cleanAnalytics, seedAnalytics } from "./scripts";

test.describe("scanners", () => {
  test.describe.configure({ mode: "serial" });
  test.beforeAll(() => seedAnalytics());
  test.afterAll(() => cleanAnalytics());

  test("a researcher writes a scanner, runs it, reads it against labels and finds its matches in the player and the list", async ({ page }) => {
    await page.goto("/scanners");
    await expect(page.getByRole("heading", { name: "Scanners", exact: true })).toBeVisible();
    await expect(page.getByTestId("scanner-row")).toHaveCount(7);

    // A pattern that backtracks catastrophically is refused beside its field.
    const form = page.getByTestId("scanner-form");
    await form.getByTestId("scanner-key").fill("e2e_pages");
    await form.getByTestId("scanner-name").fill("E2E pages");
    await form.getByTestId("scanner-category").fill("navigation stuck");
    await form.getByTestId("scanner-pattern").fill("(a+)+$");
    await form.getByTestId("save-scanner").click();
    await expect(form.getByTestId("error-rules[0].pattern")).toContainText("is itself repeated");
    await screenshotsAtDesktopSizes(page, "scanners-refused-pattern");

    // The first word of every step's action: every trajectory has actions (not every format records addresses), so
    // each scan finishes and the measures do not depend on what other specs imported before this one.
    await form.getByRole("checkbox", { name: "Action" }).check();
    await form.getByRole("checkbox", { name: "Page text" }).uncheck();
    await form.getByTestId("scanner-pattern").fill(String.raw`^\S+`);
    await form.getByTestId("save-scanner").click();
    await expect(page).toHaveURL(/\/scanners\/e2e_pages$/);

    // Run it (and the CAPTCHA scanner) over everything from the Scanners page.
    await page.getByRole("link", { name: "All scanners" }).click();
    const run = page.getByTestId("scanner-run");
    for (const key of ["login_wall", "access_denied", "site_down", "blank_page", "cookie_loop", "rate_limit"]) await run.getByTestId(`run-${key}`).uncheck();
    await run.getByTestId("run-scanners").click();
    await expect(run.getByTestId("run-report")).toContainText(/Scanned \d+ trajectories: captcha matched \d+, e2e_pages matched \d+/, { timeout: 60_000 });
    const row = page.locator('[data-testid="scanner-row"][data-key="e2e_pages"]');
    await expect(row.getByTestId("scanner-fired")).not.toHaveText("0");
    await screenshotsAtDesktopSizes(page, "scanners-list");

    // Its page: precision and recall against the seeded labels, with n and intervals.
    await row.getByRole("link", { name: "E2E pages" }).click();
    const trajectories = page.getByTestId("measure-trajectory");
    await expect(trajectories.getByTestId("measure-trajectory-precision")).toHaveText(/\d+% \[\d+%–\d+%\] · \d+\/\d+/);
    await expect(trajectories.getByTestId("measure-trajectory-recall")).toHaveText(/\d+% \[\d+%–\d+%\]/);
    await expect(page.getByTestId("measure-step")).toContainText("No steps marked by people yet");
    await screenshotsAtDesktopSizes(page, "scanner-detail");

    // A matched step opens in the player with the marker and what matched.
    const first = page.getByTestId("scanner-matches").getByRole("link").first();
    const href = (await first.getAttribute("href"))!;
    await first.click();
    await expect(page).toHaveURL(new RegExp(`${href.replace(/[?]/g, "\\?")}`));
    const findings = page.getByTestId("scanner-findings");
    await expect(findings).toContainText("E2E pages");
    await expect(findings.locator("mark")).toHaveText(/^\S+$/);
    await expect(page.locator('[data-testid="filmstrip-step"][data-scanner~="e2e_pages"]').first()).toBeVisible();
    await expect(page.getByTestId("scanner-mark").first()).toBeVisible();
    await screenshotsAtDesktopSizes(page, "scanner-player");

    // The list's search syntax filters by scanner.
    await page.goto(`/trajectories?search=${encodeURIComponent("scanner:e2e_pages")}`);
    await expect(page.locator("tbody tr").first()).toBeVisible();
    // A key that names no scanner is refused with the known ones, not answered with an empty list.
    await page.goto(`/trajectories?search=${encodeURIComponent("scanner:nothing_here")}`);
    await expect(page.getByText(/nothing_here/).first()).toBeVisible();
    await expect(page.getByText(/e2e_pages/).first()).toBeVisible();

    // Deleting it removes it and what it found.
    await page.goto("/scanners/e2e_pages");
    page.once("dialog", (d) => void d.accept());
    await page.getByRole("button", { name: "Delete" }).click();
    await expect(page).toHaveURL(/\/scanners$/);
    await expect(page.locator('[data-testid="scanner-row"][data-key="e2e_pages"]')).toHaveCount(0);
  });
});
