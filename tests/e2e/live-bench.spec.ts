/**
 * Benchmark runs from the browser: an admin describes a deployment (two local sites that need a login, a reset hook
 * each) on the Deployments page; a VisualWebArena-style task config is imported; a run is started from the New run
 * form with that profile and a VLM policy (the fake OpenAI-compatible endpoint in this process); the player then
 * shows the step's Network panel (the site's requests from the HAR) and Prompt panel (the messages sent, the input
 * image as its hash). Screenshots at the three layout sizes.
 */
import { expect, test } from "./reused-page";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai";
import { SITE_PASSWORD, SITE_USER, startLoginSite, storageStateFileFor, type LoginSite } from "../helpers/login-sites";
import { expectCleanLayout, resizeTo, screenshotAt, VIEWPORTS } from "./layout";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = () => process.env.VERDICT_E2E_DIR!;
const dataEnv = () => ({ ...process.env, VERDICT_DB: path.join(dir(), "verdict.db"), VERDICT_DATA_DIR: dir() });

let worker: ChildProcess | null = null;
let workerLog = "";
let forum: LoginSite;
let market: LoginSite;
let fake: FakeOpenAI;

test.describe.configure({ mode: "serial" });

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/cli.ts", ...args], { cwd: root, env: { ...dataEnv(), ...env }, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cli ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

/** Named per test process: a retry finds the first attempt's configuration (with another fake's port) in the same database. */
const judgeName = `e2e fake vlm ${process.pid}`;

test.beforeAll(async () => {
  // Two CLI runs and a worker that compiles and seeds before it says it is ready: a minute or more on a loaded 2-core
  // CI machine, past the 60 s a hook gets by default.
  test.setTimeout(240_000);
  forum = await startLoginSite("forum", "Red kettle");
  market = await startLoginSite("market", "Blue teapot");
  fake = await startFakeOpenAI({
    responder: (req) => {
      const line = req.texts
        .at(-1)!
        .split("\n")
        .find((l) => /^\[\d+\] <a> Red kettle/.test(l));
      return line
        ? { reply: `Reasoning: the kettle in the task's image is listed.\nAction: click [${/^\[(\d+)\]/.exec(line)![1]}]` }
        : { reply: "Reasoning: this is the kettle.\nAction: stop [Red kettle]" };
    },
  });
  const configs = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-e2e-vwa-"));
  const task = (id: number) => ({
    task_id: id,
    sites: ["reddit"],
    require_login: true,
    storage_state: "./.auth/reddit_state.json",
    start_url: "__REDDIT__/",
    intent: "Find the kettle shown in the image.",
    image: "environment_docker/webarena-homepage/static/input_images/reddit/task_0/input_0.png",
    require_reset: true,
    eval: { eval_types: ["url_match"], reference_answers: null, reference_url: "__REDDIT__/item/1", url_note: "EXACT", program_html: [] },
  });
  // A site name of its own, so the task set holds exactly this task whatever else the e2e database has.
  fs.writeFileSync(path.join(configs, "test_e2eforum.raw.json"), JSON.stringify([task(0)]));
  cli(["import", configs]);
  cli(["judge-config", "add", "--name", judgeName, "--base-url", fake.baseUrl, "--model", "fake-vlm-1"], { VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535" });
  worker = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: root,
    env: { ...dataEnv(), VERDICT_RUNNER_CONCURRENCY: "1", VERDICT_JUDGE_ALLOW_LOOPBACK: "1024-65535" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  worker.stderr!.on("data", (d: Buffer) => (workerLog += d.toString()));
  await expect.poll(() => workerLog, { timeout: 180_000, message: "the runner worker did not start" }).toMatch(/demo task set ready/);
});

test.afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((r) => worker!.once("exit", r));
    worker.kill("SIGTERM");
    await exited;
  }
  await fake?.close();
  await forum?.close();
  await market?.close();
});

test("an admin describes the deployment; a run with its profile shows the Network and Prompt panels", async ({ page }) => {
  test.setTimeout(240_000);
  // The Deployments page (admin): the profile as JSON, the storage state pasted for the market.
  await page.goto("/live");
  await page.getByTestId("deployments").click();
  await expect(page).toHaveURL(/\/live\/deployments$/);
  const profile = {
    name: "e2e lab",
    sites: [
      {
        placeholder: "__REDDIT__",
        url: forum.baseUrl,
        login: {
          kind: "recipe",
          url: `${forum.baseUrl}/login`,
          usernameSelector: "#user",
          passwordSelector: "#pass",
          submitSelector: "#go",
          username: SITE_USER,
          password: SITE_PASSWORD,
        },
        reset: { method: "POST", url: `${forum.baseUrl}/reset` },
      },
      { placeholder: "__SHOPPING__", url: market.baseUrl, login: { kind: "storageState", state: storageStateFileFor(market) } },
      { placeholder: "__HOMEPAGE__", url: market.baseUrl },
    ],
  };
  await page.getByTestId("profile-json").fill(JSON.stringify(profile, null, 2));
  await page.getByTestId("save-profile").click();
  const row = page.getByTestId("profile-e2e lab");
  await expect(row).toContainText("login as agent");
  await expect(row).toContainText("storage state (1 cookies)");
  await expect(row).toContainText(`127.0.0.1:${forum.port}`);
  await expect(page.locator("body")).not.toContainText(SITE_PASSWORD);
  for (const size of VIEWPORTS) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, "live-deployments", size);
  }
  await resizeTo(page, VIEWPORTS[0]);

  // The New run form: the imported VWA task set, the VLM policy, the profile.
  await page.goto("/live/new");
  await page.getByTestId("source-set").click();
  await page.getByLabel("Task set").selectOption({ label: "WebArena-style e2eforum (1 tasks)" });
  await page.getByTestId("policy-vlm").click();
  await page.getByLabel("Endpoint configuration").selectOption({ label: `${judgeName} (fake-vlm-1)` });
  // Without the profile the task's __REDDIT__ cannot be reached; with it, the preview is clean.
  await expect(page.getByTestId("placeholder-problems")).toContainText("__REDDIT__ in its start URL needs a deployment profile");
  await page.getByLabel("Deployment profile").selectOption({ label: "e2e lab (__REDDIT__, __SHOPPING__, __HOMEPAGE__)" });
  await expect(page.getByTestId("placeholder-problems")).toHaveCount(0);
  await page.getByLabel("Step limit").fill("4");
  await page.getByLabel("Name (optional)").fill("e2e benchmark run");
  for (const size of VIEWPORTS) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, "live-new-benchmark", size);
  }
  await resizeTo(page, VIEWPORTS[0]);
  await page.getByTestId("start-run").click();

  await expect(page).toHaveURL(/\/live\/\d+$/);
  await expect(page.getByTestId("run-counts")).toContainText("1 of 1 tasks done", { timeout: 120_000 });
  await expect(page.getByTestId("run-success-rate")).toContainText("1 of 1 succeeded");
  expect(forum.logins).toBe(1);
  expect(forum.resets).toBe(1);
  // What the run could reach: the profile's sites, said plainly (not "each task's start host").
  await expect(page.getByTestId("run-reach")).toHaveText("only the sites of profile “e2e lab”: 127.0.0.1");
  for (const size of VIEWPORTS) {
    await resizeTo(page, size);
    await expectCleanLayout(page);
    await screenshotAt(page, "live-run-benchmark", size);
  }
  await resizeTo(page, VIEWPORTS[0]);

  // The player: step 1's Network panel lists the click's request; the Prompt panel the messages, the image hashed.
  await page.getByTestId("watch").first().click();
  await expect(page).toHaveURL(/\/live\/\d+\/\d+(\?|$)/);
  const evidence = page.getByTestId("live-evidence");
  await expect(evidence.getByTestId("network-panel")).toContainText(`127.0.0.1:${forum.port}/item/1`);
  await evidence.getByTestId("tab-prompt").click();
  await expect(evidence.getByTestId("prompt-panel")).toContainText("verdict-live-v2");
  await expect(evidence.getByTestId("prompt-panel")).toContainText("The task comes with this image:");
  await expect(evidence.getByTestId("prompt-panel")).toContainText("[image sha256:");
  for (const size of VIEWPORTS) {
    await resizeTo(page, size);
    await screenshotAt(page, "player-live-evidence", size);
  }
  expect(fake.requests[0]!.imageHashes.length).toBe(2);
});
