/**
 * API tokens from the account page (issue 31, item 1): the signed-in admin opens their account from the name in
 * the top bar, makes a token (shown once), a script without cookies reads the API with it, the list shows its
 * last use, and after revoking it the API refuses the same token.
 */
import { expect, request, test } from "./reused-page";
import { screenshotsAtDesktopSizes } from "./layout";

test.describe("API tokens on the account page", () => {
  test("make a token, use it from a script, see its last use, revoke it", async ({ page, baseURL }) => {
    await page.goto("/trajectories");
    await page.getByTestId("signed-in-user").click();
    await expect(page).toHaveURL(/\/account$/);
    const panel = page.getByTestId("api-tokens");
    await panel.getByLabel("Name").fill("e2e script");
    await panel.getByLabel("Scope").selectOption("read");
    await panel.getByRole("button", { name: "Create token" }).click();
    const shown = panel.getByTestId("new-token");
    await expect(shown).toHaveText(/^vdt_/);
    const token = (await shown.textContent())!.trim();
    await screenshotsAtDesktopSizes(page, "account-api-tokens", [panel.getByRole("button", { name: "Create token" }), shown]);

    // A script: no cookies, only the token.
    const script = await request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    const list = await script.get("/api/v1/trajectories?pageSize=25", { headers: { Authorization: `Bearer ${token}` } });
    expect(list.status()).toBe(200);
    expect(((await list.json()) as { rows: unknown[] }).rows.length).toBeGreaterThan(0);
    const write = await script.post(`/api/v1/trajectories/1/verdicts`, {
      headers: { Authorization: `Bearer ${token}` },
      data: { evaluator: "e2e", verdict: "success" },
    });
    expect(write.status()).toBe(403);

    // Shown once: after a reload the token is gone from the page, and its row shows the use.
    await page.reload();
    await expect(panel.getByTestId("new-token")).toHaveCount(0);
    const row = panel.getByTestId("token-list").getByRole("row", { name: /e2e script/ });
    await expect(row).toContainText("read");
    await expect(row).toContainText("active");
    await expect(row).not.toContainText("never");
    await screenshotsAtDesktopSizes(page, "account-api-tokens-list", [row]);

    page.once("dialog", (d) => void d.accept());
    await row.getByRole("button", { name: "Revoke" }).click();
    await expect(row).toContainText("revoked");
    expect((await script.get("/api/v1/trajectories", { headers: { Authorization: `Bearer ${token}` } })).status()).toBe(401);
    await script.dispose();
  });
});
