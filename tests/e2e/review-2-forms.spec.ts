/**
 * Defects #18, #20 and #23 of UI review 2, in Chromium: the judge configuration form says what is wrong beside the
 * field, in plain words and never stale, shows its Screenshots choice whole, and tests an endpoint before it is saved
 * (a small OpenAI-compatible server on 127.0.0.1; a private address the judge policy refuses); the Users page copies
 * an invitation link, replaces a lost one, and puts a refused self-demotion's select back; the labelling page on a
 * tablet held upright (768×1024) keeps its header apart and reaches the label form with one button.
 */
import { expect, test, type Locator, type Page } from "./reused-page";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { storageStateOf } from "./accounts";
import { apiAs, trpc } from "./api";
import { loadFixtures } from "./fixtures";
import { DESKTOP_SIZES, expectCleanLayout, resizeTo, screenshotAt } from "./layout";

/** At each desktop size: clean, the regions on screen, captured. */
async function atEverySize(page: Page, name: string, regions: Locator[], check?: () => Promise<void>) {
  for (const size of DESKTOP_SIZES) {
    await resizeTo(page, size);
    for (const r of regions) await r.scrollIntoViewIfNeeded();
    await expectCleanLayout(page, regions);
    for (const r of regions) await expect(r).toBeInViewport();
    await check?.();
    await screenshotAt(page, name, size);
  }
  await resizeTo(page, DESKTOP_SIZES[0]);
}

/** Whether a select shows its chosen option's whole text (a select clips it without any overflow to measure). */
function chosenTextFits(select: Locator): Promise<{ text: string; needs: number; has: number }> {
  return select.evaluate((el) => {
    const s = el as HTMLSelectElement;
    const style = getComputedStyle(s);
    const ctx = document.createElement("canvas").getContext("2d")!;
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = s.selectedOptions[0]?.text ?? "";
    // The arrow takes the right padding's room.
    const has = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { text, needs: Math.ceil(ctx.measureText(text).width), has: Math.floor(has) };
  });
}

test.describe("the judge configuration form (review 2, #18)", () => {
  let fake: FakeOpenAI;
  test.use({ storageState: storageStateOf("researcher") });
  test.beforeAll(async () => {
    fake = await startFakeOpenAI({ models: ["fake-vlm", "fake-vlm-large"] });
  });
  test.afterAll(async () => {
    await fake?.close();
  });

  test("errors beside their field, in plain words and current; the Screenshots choice whole; Test this endpoint", async ({ page }) => {
    await page.goto("/judges");
    await page.getByTestId("new-config").click();
    const form = page.getByRole("form", { name: "New judge configuration" });
    const url = form.getByLabel("Endpoint base URL");
    const temperature = form.getByLabel("Temperature");
    await form.getByLabel("Name").fill(`review-2 form ${Date.now()}`);
    await form.getByLabel("Model").fill("fake-vlm");

    // Not a URL: said beside the field (the browser's own check no longer stops the form before it can say so).
    await url.fill("not a url");
    await temperature.fill("5");
    await page.getByTestId("create-config").click();
    await expect(url).toHaveAccessibleDescription(/^This is not a web address/);
    await expect(temperature).toHaveAccessibleDescription("Write a number from 0 to 2 (0 gives the most repeatable verdicts).");
    await expect(form.getByTestId("config-error")).toHaveText("Please correct the fields marked in red.");

    // A refused host: the server's reason beside the field, without the schema's field names.
    await temperature.fill("0.2");
    await expect(temperature).not.toHaveAttribute("aria-invalid");
    await url.fill("http://169.254.169.254/v1");
    // Changing the field drops what was said about it: nothing stale stays on screen.
    await expect(url).not.toHaveAttribute("aria-invalid");
    await expect(form.getByTestId("field-problem")).toHaveCount(0);
    await page.getByTestId("create-config").click();
    await expect(url).toHaveAccessibleDescription(/^This endpoint is not allowed: judge endpoint 169\.254\.169\.254 is a cloud metadata service/);
    await expect(form).not.toContainText('field "baseUrl"');
    await url.fill("not a url either");
    await page.getByTestId("create-config").click();
    await expect(url).toHaveAccessibleDescription(/^This is not a web address/);
    await expect(form).not.toContainText("169.254.169.254 is a cloud metadata service");
    await atEverySize(page, "review2-judge-form-errors", [url], async () => {
      const fit = await chosenTextFits(form.getByLabel("Screenshots"));
      expect(fit.needs, `"${fit.text}" in the Screenshots select`).toBeLessThanOrEqual(fit.has);
    });

    // Test this endpoint: one call, through the server, before anything is saved.
    const test = page.getByTestId("test-endpoint");
    const result = page.getByTestId("endpoint-test");
    await url.fill(fake.baseUrl);
    fake.requests.length = 0;
    await test.click();
    await expect(result).toHaveAttribute("data-outcome", "model-found");
    await expect(result).toHaveText("The endpoint answered and serves fake-vlm: the configuration can be used.");
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models"]);
    await atEverySize(page, "review2-judge-endpoint-found", [result]);

    await form.getByLabel("Model").fill("gpt-9");
    // The result was about the model typed before: it goes.
    await expect(result).toHaveCount(0);
    await test.click();
    await expect(result).toHaveAttribute("data-outcome", "model-missing");
    await expect(result).toContainText("does not serve gpt-9; it serves fake-vlm, fake-vlm-large");

    await url.fill("http://10.11.12.13/v1");
    fake.requests.length = 0;
    await test.click();
    await expect(result).toHaveAttribute("data-outcome", "refused");
    await expect(result).toContainText("Not called: judge endpoint 10.11.12.13 is a private or link-local address");
    await atEverySize(page, "review2-judge-endpoint-refused", [result]);
    expect(fake.requests).toHaveLength(0);
  });
});

test.describe("the Users page (review 2, #20)", () => {
  test.use({ permissions: ["clipboard-read", "clipboard-write"] });

  test("an invitation link is copied, a lost one replaced, and a refused self-demotion puts the select back", async ({ page, baseURL }) => {
    await page.goto("/users");
    const email = `review2-invite-${Date.now()}@e2e.test`;
    const inviteForm = page.locator("form").filter({ has: page.getByRole("button", { name: "Make invitation link" }) });
    await inviteForm.getByLabel("Email").fill(email);
    await inviteForm.getByLabel("Role").selectOption("researcher");
    await inviteForm.getByRole("button", { name: "Make invitation link" }).click();
    const status = page.getByRole("status");
    await expect(status).toContainText(`Invitation for ${email} (researcher)`);
    const first = (await status.getByTestId("copy-value").textContent())!;
    expect(first).toMatch(new RegExp(`^${baseURL}/invite/`));
    await status.getByRole("button", { name: "Copy" }).click();
    await expect(status.getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(first);

    // The link is not shown again (only its fingerprint is kept): the page says so and offers a new one.
    await page.reload();
    const pending = page.getByTestId("pending-invitations");
    await expect(pending).toContainText("A link is shown only once");
    await expect(page.locator("body")).not.toContainText(first);
    await pending.getByRole("button", { name: `New link for ${email}` }).click();
    await expect(status).toContainText(`New invitation link for ${email} (researcher)`);
    await expect(status).toContainText("the previous link no longer works");
    const second = (await status.getByTestId("copy-value").textContent())!;
    expect(second).not.toBe(first);
    await atEverySize(page, "review2-users-new-link", [status, pending]);

    // The replaced link is refused; the new one opens the invitation.
    const other = await page.context().browser()!.newContext();
    const visitor = await other.newPage();
    await visitor.goto(first);
    await expect(visitor.getByRole("main")).toContainText("not valid");
    await visitor.goto(second);
    await expect(visitor.getByRole("main")).toContainText(email);
    await other.close();

    // The only admin demoting themselves is refused, and the select shows their role again with no Apply left.
    const api = await apiAs("admin", baseURL!);
    const list = await trpc<{ users: { role: string; email: string }[] }>(api, "query", "accounts.list", undefined);
    await api.dispose();
    expect(list.data.users.filter((u) => u.role === "admin").map((u) => u.email)).toEqual(["admin@e2e.test"]);
    const mine = page.getByLabel("Role of admin@e2e.test");
    await mine.selectOption("researcher");
    await page.getByTestId("apply-role-admin@e2e.test").click();
    await expect(status).toContainText("is the only admin");
    await expect(mine).toHaveValue("admin");
    await expect(page.getByTestId("apply-role-admin@e2e.test")).toHaveCount(0);
    await atEverySize(page, "review2-users-self-demote", [status, mine]);
  });
});

test.describe("the labelling page at 768×1024 (review 2, #23)", () => {
  test.use({ storageState: storageStateOf("annotator3") });
  let campaignId: number;
  let itemNo: number;

  test.beforeAll(async ({ baseURL }) => {
    const ids = Object.values(loadFixtures().trajectories).sort((a, b) => a - b);
    const researcher = await apiAs("researcher", baseURL!);
    const a3 = await apiAs("annotator3", baseURL!);
    const me = await trpc<{ userId: string }>(a3, "query", "accounts.me", undefined);
    const created = await trpc<{ id: number }>(researcher, "mutation", "campaigns.create", {
      name: `Review-2 tablet ${Date.now()}`,
      trajectoryIds: ids.slice(2, 3),
      annotatorsPerItem: 1,
      annotatorIds: [me.data.userId],
      blind: true,
    });
    expect(created.status).toBe(200);
    campaignId = created.data.id;
    const next = await trpc<{ itemNo: number }>(a3, "mutation", "labelling.next", { campaignId });
    expect(next.status).toBe(200);
    itemNo = next.data.itemNo;
    await Promise.all([researcher.dispose(), a3.dispose()]);
  });

  test("the header's texts stay apart and one button brings the label form on screen", async ({ page }) => {
    await page.setViewportSize({ width: 768, height: 1024 });
    await page.goto(`/annotate/${campaignId}/${itemNo}`);
    const panel = page.getByTestId("label-panel");
    await expect(panel).toBeAttached();
    const header = page.locator('[data-testid="player"] > div').first();
    const back = page.getByTestId("player-back");
    const title = header.locator("h1");
    await expect(title).toBeVisible();
    // The task's id is whole and drawn beside the way back, not over it.
    expect(await title.evaluate((h) => h.scrollWidth - h.clientWidth)).toBeLessThanOrEqual(1);
    const [b, t] = [(await back.boundingBox())!, (await title.boundingBox())!];
    expect(b.x + b.width, "the back link ends before the task's id").toBeLessThanOrEqual(t.x + 0.5);
    await expectCleanLayout(page, [header]);

    // The form starts below the player (its first line may show at the bottom, its submit button does not); the
    // corner button takes the annotator there and back.
    const jump = page.getByTestId("label-jump");
    const submit = panel.getByRole("button", { name: /Submit & next/ });
    await expect(submit).not.toBeInViewport();
    await expect(jump).toHaveText("↓ Label this trajectory");
    await expect(jump).toBeInViewport();
    await jump.click();
    await expect(panel.getByRole("button", { name: /Success/ }).first()).toBeInViewport();
    await expect(submit).toBeInViewport();
    await expect(jump).toHaveText("↑ Screenshot");
    await screenshotAt(page, "review2-label-768", { width: 768, height: 1024 });
    await jump.click();
    await expect(page.getByRole("region", { name: "Step viewer" })).toBeInViewport();
    await expect(jump).toHaveText("↓ Label this trajectory");
    // On a desktop the form sits beside the screenshot: no button.
    await resizeTo(page, DESKTOP_SIZES[0]);
    await expect(jump).toBeHidden();
  });
});
