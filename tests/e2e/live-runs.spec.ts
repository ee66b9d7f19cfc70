/**
 * Live runs from the browser: start a run on the demo sites from the "New run" form, watch its steps arrive in the
 * player while the runner records them (they stream over SSE; nothing on the page polls), then play it back.
 *
 * The spec starts its own runner worker (`scripts/worker.ts`) on the e2e database; that worker serves the demo sites
 * on the default demo port and creates the demo task set with start URLs there. The spec runs as the e2e researcher.
 */
import { expect, test, type Page } from "./reused-page";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { account } from "./accounts";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = () => process.env.VERDICT_E2E_DIR!;
const dataEnv = () => ({ ...process.env, VERDICT_DB: path.join(dir(), "verdict.db"), VERDICT_DATA_DIR: dir() });

let worker: ChildProcess | null = null;
let workerLog = "";

test.describe.configure({ mode: "serial" });
// Starting and cancelling runs is a researcher's job: the spec signs in as the e2e researcher through the form.
test.use({ storageState: { cookies: [], origins: [] } });

test.beforeAll(async () => {
  // A worker process (tsx, then Chromium) beside the app server and the other shards: on a loaded two-core machine
  // it took longer than a minute to start, so the hook waits up to its own limit rather than the test's 60 s.
  test.setTimeout(240_000);
  worker = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: root,
    env: { ...dataEnv(), VERDICT_RUNNER_CONCURRENCY: "1" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  worker.stderr!.on("data", (d: Buffer) => (workerLog += d.toString()));
  await expect.poll(() => workerLog, { timeout: 180_000, message: "the runner worker did not start" }).toMatch(/demo task set ready/);
});

test.afterAll(async () => {
  if (!worker || worker.exitCode !== null) return;
  const exited = new Promise((r) => worker!.once("exit", r));
  worker.kill("SIGTERM");
  await exited;
});

const stepCount = async (page: Page) => Number(((await page.getByTestId("live-step-count").textContent()) ?? "").split("/")[0]!.trim());

async function signInAsResearcher(page: Page) {
  const researcher = account("researcher");
  await page.goto("/sign-in?next=%2Flive%2Fnew");
  await page.getByLabel("Email").fill(researcher.email);
  await page.getByLabel("Password").fill(researcher.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/live\/new$/);
}

test("start a run on the demo sites, watch its steps arrive, then play it back", async ({ page }) => {
  test.setTimeout(180_000);
  await signInAsResearcher(page);

  // The form: the demo task set, its first task only, an action list slow enough to watch (each `wait` is 1 s).
  await expect(page.getByTestId("preview")).toContainText("demo task set");
  await page.getByTestId("source-set").click();
  await page.getByLabel("Task set").selectOption({ label: "Verdict demo (9 tasks)" });
  await page.getByLabel("Only the first").fill("1");
  await expect(page.getByTestId("preview")).toContainText("1 task · task set Verdict demo (first 1 of 9)");
  await page.getByTestId("policy-scripted").click();
  await page.getByLabel("This action list, on every task").check();
  await page
    .getByLabel("Actions, one per line")
    .fill(
      [
        "type [{{input:e.g. lentil}}] [lentil]",
        "wait",
        "click [{{a:Red Lentil Soup with Cumin}}]",
        "wait",
        "Scroll [WINDOW]; down",
        "wait",
        "stop [45 minutes]",
      ].join("\n"),
    );
  await page.getByLabel("Name (optional)").fill("e2e live run");
  for (const size of VIEWPORTS) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, "live-new", size);
  }
  await resizeTo(page, VIEWPORTS[0]);
  await page.getByTestId("start-run").click();

  // The run page: its task appears, with the scripted label, and a Watch link once the worker started it.
  await expect(page).toHaveURL(/\/live\/\d+$/);
  await expect(page.getByRole("heading", { name: "e2e live run" })).toBeVisible();
  await expect(page.getByTestId("scripted-badge")).toBeVisible();
  const row = page.getByTestId("task-demo.recipes--1");
  await expect(row).toBeVisible();
  // Watch names its task, so a screen reader's list of links tells the tasks apart (review 2, #17).
  await expect(row.getByRole("link", { name: /^(Watch|Replay) demo\.recipes--1$/ })).toBeVisible({ timeout: 60_000 });
  await row.getByTestId("watch").click({ timeout: 60_000 });

  // The live player: the count of recorded steps grows while the page only listens.
  await expect(page).toHaveURL(/\/live\/\d+\/\d+(\?step=\d+)?$/);
  await expect(page.getByTestId("live-indicator")).toBeVisible();
  await expect.poll(() => stepCount(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
  const first = await stepCount(page);
  await screenshotAt(page, "live-player-recording", VIEWPORTS[0]);
  await expect.poll(() => stepCount(page), { timeout: 30_000 }).toBeGreaterThan(first);
  // While following, the player shows the newest step.
  const shown = await page.getByTestId("step-counter").textContent();
  expect(shown).toMatch(/^Step (\d+) of \1$/);

  // Finished: the run is an ordinary trajectory now.
  await expect(page.getByTestId("open-player")).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("live-step-count")).toHaveText("7 / 15 steps");
  await expect(page.getByTestId("live-bar")).toContainText("answered");
  // Followed to its end, the view stays on the last step instead of jumping back to step 1 (review 2, #16).
  await expect(page.getByTestId("step-counter")).toHaveText("Step 7 of 7");
  await screenshotAt(page, "live-player-finished", VIEWPORTS[0]);

  // Play it back from the start to the answer.
  await page.keyboard.press("Home");
  await expect(page.getByTestId("step-counter")).toHaveText("Step 1 of 7");
  await page.getByTestId("play").click();
  await expect(page.getByTestId("step-counter")).toHaveText("Step 7 of 7", { timeout: 30_000 });
  await expect(page.getByTestId("parsed-action")).toContainText("45 minutes");

  // And in the ordinary player, where it is labelled.
  await page.getByTestId("open-player").click();
  await expect(page).toHaveURL(/\/trajectories\/\d+/);
  await expect(page.getByTestId("step-counter")).toHaveText("Step 1 of 7");
  await expect(page.getByTestId("final-answer")).toContainText("45 minutes");

  // The run page shows it done.
  await page.goto("/live");
  const runRow = page.getByTestId("live-runs").getByRole("row", { name: /e2e live run/ });
  await expect(runRow).toContainText("1 of 1 tasks done");
  await expect(runRow).toContainText("finished");
  // Runs are told apart by number (an unnamed run is named by its policy and task set only), review 2, #17.
  await expect(runRow.getByTestId("live-run-name")).toContainText(/^#\d+/);
  await screenshotAt(page, "live-list", VIEWPORTS[0]);
});
