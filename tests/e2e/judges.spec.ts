/**
 * Judges in the dashboard, in Chromium against a fake OpenAI-compatible endpoint on 127.0.0.1 (the app allows
 * loopback judge servers on the unprivileged ports, VERDICT_JUDGE_ALLOW_LOOPBACK in tests/playwright.config.ts): a
 * researcher creates a configuration (the allowlist's refusal shown in the form), goes from a filtered trajectory list to
 * the batch form with "Judge these", dry-runs it, starts it, watches it reach 100 %, sees the verdicts counted
 * and the run page's success rate by evaluator; a slow batch is cancelled and resumed; failed calls are listed
 * with their reasons. Pages are captured at 1280×800, 1440×900 and 1920×1080 into test-results/screens/.
 */
import { expect, test, type APIRequestContext, type Page } from "./reused-page";
import { startFakeOpenAI, DEFAULT_REPLY, type FakeOpenAI } from "../helpers/fake-openai";
import { storageStateOf } from "./accounts";
import { expectCleanLayout, resizeTo, screenshotAt } from "./layout";
import { mutation, query } from "./api";

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;

async function shoot(page: Page, name: string) {
  for (const size of SIZES) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, `judges-${name}`, size);
  }
  await resizeTo(page, SIZES[0]);
}

/** A small imported run, so batches over it finish in seconds. */
async function smallRun(request: APIRequestContext): Promise<{ id: number; trajectoryCount: number }> {
  const runs = await query<{ id: number; trajectoryCount: number }[]>(request, "runs.list");
  const small = runs.filter((r) => r.trajectoryCount > 0 && r.trajectoryCount <= 20).sort((a, b) => a.trajectoryCount - b.trajectoryCount)[0];
  expect(small, "the e2e setup imported a run with at most 20 trajectories").toBeDefined();
  return small!;
}

test.describe("judges in the dashboard", () => {
  test.describe.configure({ mode: "serial" });
  let fake: FakeOpenAI;
  const stamp = Date.now().toString(36);

  test.beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  test.afterAll(async () => {
    await fake?.close();
  });

  test("create a configuration, judge a filtered list from a dry run to 100 %, and see the run's success rate", async ({ page, request }) => {
    test.setTimeout(120_000);
    const run = await smallRun(request);
    const name = `e2e judge ${stamp}`;

    await page.goto("/judges");
    await page.getByTestId("new-config").click();
    const form = page.getByRole("form", { name: "New judge configuration" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Model").fill("fake-vlm");
    // A private address is not on any allowlist: the server's refusal is shown beside the field.
    await form.getByLabel("Endpoint base URL").fill("http://10.11.12.13/v1");
    await form.getByLabel("API key").fill("sk-e2e-secret-key");
    await form.getByLabel("Input price (USD / M tokens)").fill("2.5");
    await form.getByLabel("Output price (USD / M tokens)").fill("10");
    await page.getByTestId("create-config").click();
    await expect(form.getByLabel("Endpoint base URL")).toHaveAccessibleDescription(/^This endpoint is not allowed: .*private or link-local address/);
    await shoot(page, "config-refused");

    await form.getByLabel("Endpoint base URL").fill(fake.baseUrl);
    await form.getByLabel("Endpoint base URL").press("Enter");
    const row = page.getByTestId(`config-${name}`);
    await expect(row).toBeVisible();
    await expect(row.getByTestId("key-source")).toHaveText("stored on the server");
    // Write-only: the key appears nowhere on the page.
    await expect(page.locator("body")).not.toContainText("sk-e2e-secret-key");
    await shoot(page, "configs");

    // From the filtered trajectory list to the batch form, the filter travelling in the address.
    await page.goto(`/trajectories?run=${run.id}`);
    await page.getByTestId("judge-these").click();
    await expect(page).toHaveURL(new RegExp(`/judges/batch\\?run=${run.id}$`));
    await expect(page.getByTestId("selection")).toContainText(`?run=${run.id}`);
    await page.getByTestId("config-select").selectOption({ label: name });
    await page.getByTestId("k-1").check();
    await page.getByTestId("k-3").check();
    await expect(page.getByTestId("start-batch")).toBeDisabled();
    await page.getByTestId("dry-run").click();
    const configs = await query<{ id: number; name: string }[]>(request, "judge.configs.list");
    const configId = configs.find((c) => c.name === name)!.id;
    const expected = await query<{ trajectories: number; calls: number; images: number; costUsd: number | null }>(request, "judge.batches.estimate", {
      config: configId,
      selection: { filter: { runId: run.id } },
      kValues: [1, 3],
    });
    expect(expected.trajectories).toBe(run.trajectoryCount);
    expect(expected.calls).toBe(run.trajectoryCount * 2);
    expect(expected.images).toBeGreaterThan(0);
    await expect(page.getByTestId("est-trajectories")).toHaveText(String(run.trajectoryCount));
    await expect(page.getByTestId("est-calls")).toHaveText(String(expected.calls));
    await expect(page.getByTestId("est-images")).toHaveText(expected.images.toLocaleString("en-US"));
    await expect(page.getByTestId("est-cost")).toHaveText(/^\$\d/);
    expect(fake.requests.length, "a dry run calls nobody").toBe(0);
    await shoot(page, "batch-form");

    // Changing the form asks for a new dry run before starting.
    await page.getByTestId("k-1").uncheck();
    await expect(page.getByTestId("start-batch")).toBeDisabled();
    await page.getByTestId("k-1").check();
    await page.getByTestId("dry-run").click();
    await expect(page.getByTestId("est-calls")).toHaveText(String(expected.calls));

    await page.getByTestId("start-batch").click();
    await expect(page).toHaveURL(/\/judges\/batches\/\d+$/);
    await expect(page.getByTestId("batch-progress")).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });
    await expect(page.getByTestId("verdict-success")).toHaveText(String(expected.calls));
    await expect(page.getByTestId("no-failures")).toHaveText("No call has failed.");
    expect(fake.requests.length).toBe(expected.calls);
    await shoot(page, "batch-done");

    // The run page counts the judge among its evaluators, with n and a Wilson interval.
    await page.goto(`/runs/${run.id}`);
    const judgeRows = page.getByTestId("success-rates").getByTestId("rate-judge");
    await expect(judgeRows.filter({ hasText: name }).first()).toContainText(`100.0% [`);
    await expect(judgeRows.filter({ hasText: name }).first()).toContainText(`${run.trajectoryCount}/${run.trajectoryCount}`);
    await shoot(page, "run-rates");
  });

  test("a slow batch can be cancelled and resumed to the end", async ({ page, request }) => {
    test.setTimeout(120_000);
    const run = await smallRun(request);
    // Longer than any test step: the call is still waiting for its answer when the cancel reaches it (the worker aborts
    // it), however soon the worker took it.
    fake.setResponder(() => ({ reply: DEFAULT_REPLY, delayMs: 30_000 }));
    const config = await mutation<{ id: number }>(request, "judge.configs.create", { name: `e2e slow ${stamp}`, model: "fake-slow", baseUrl: fake.baseUrl });

    await page.goto(`/judges/batch?run=${run.id}&config=${config.id}`);
    await page.getByLabel("Concurrency").fill("1");
    await page.getByTestId("dry-run").click();
    await expect(page.getByTestId("est-calls")).toHaveText(String(run.trajectoryCount));
    await page.getByTestId("start-batch").click();
    await expect(page).toHaveURL(/\/judges\/batches\/\d+$/);
    await expect(page.getByTestId("batch-counts")).toContainText("1 running");
    page.once("dialog", (d) => void d.accept());
    await page.getByTestId("cancel-batch").click();
    await expect(page.getByTestId("status")).toHaveText("cancelled", { timeout: 20_000 });
    await expect(page.getByTestId("batch-counts")).toContainText("cancelled");
    await expect(page.getByTestId("resume-batch")).toBeVisible();
    // Cancelled calls were not made: the bar does not read as complete.
    await expect(page.getByTestId("batch-progress")).not.toHaveAttribute("aria-valuenow", "100");
    await shoot(page, "batch-cancelled");

    fake.setResponder(() => ({ reply: DEFAULT_REPLY }));
    await page.getByTestId("resume-batch").click();
    await expect(page.getByTestId("batch-progress")).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });
    await expect(page.getByTestId("status")).toHaveText("finished");
    await expect(page.getByTestId("verdict-success")).toHaveText(String(run.trajectoryCount));
  });

  test("failed calls are listed with the endpoint's reason", async ({ page, request }) => {
    const run = await smallRun(request);
    fake.setResponder(() => ({ status: 400, message: "The model `fake-missing` does not exist" }));
    const config = await mutation<{ id: number }>(request, "judge.configs.create", {
      name: `e2e broken ${stamp}`,
      model: "fake-missing",
      baseUrl: fake.baseUrl,
    });
    const { batchId } = await mutation<{ batchId: number }>(request, "judge.batches.start", {
      config: config.id,
      selection: { filter: { runId: run.id } },
      kValues: ["full"],
    });
    await page.goto(`/judges/batches/${batchId}`);
    // Endpoint errors are stored short (status, never the reply's text), grouped by reason, then call by call.
    await expect(page.getByTestId("failures")).toContainText("HTTP 400", { timeout: 30_000 });
    await expect(page.getByTestId("failures")).not.toContainText("does not exist");
    await expect(page.getByTestId("failures")).toContainText(`${run.trajectoryCount} ×`);
    await expect(page.getByTestId("failure-table").locator("tbody tr")).toHaveCount(run.trajectoryCount);
    await expect(page.getByTestId("failure-table")).toContainText("HTTP 400");
    await expect(page.getByTestId("resume-batch")).toBeVisible();
    await shoot(page, "batch-failed");
    fake.setResponder(() => ({ reply: DEFAULT_REPLY }));
  });
});

test.describe("annotators", () => {
  test.use({ storageState: storageStateOf("annotator1") });

  test("get the 403 view on the judges pages", async ({ page }) => {
    for (const url of ["/judges", "/judges/batch"]) {
      const res = await page.goto(url);
      expect(res?.status(), url).toBe(403);
      await expect(page.getByTestId("forbidden")).toBeVisible();
    }
  });
});
