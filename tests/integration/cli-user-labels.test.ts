import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { seedTrajectories } from "../helpers/annotation-fixture";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { runCliInProcess, spawnCli } from "../helpers/cli";
import type { TestContext } from "../helpers/context";

const environment = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "VERDICT_DATABASE_URL" && k !== "VERDICT_DB")) as NodeJS.ProcessEnv;
const root = path.resolve(__dirname, "..", "..");

describeEachBackend("npm run cli -- user / labels", (backend) => {
  // The installation the CLI works on: a SQLite file in the data folder, or (VERDICT_DATABASE_URL) a PostgreSQL database.
  let ctx: TestContext;
  let dir: string;

  /** The CLI on this installation: in this process, or (`spawned`) as `scripts/cli.ts` in a process of its own. */
  async function cli(args: string[], { spawned = false } = {}) {
    const env = {
      ...environment,
      VERDICT_DATA_DIR: dir,
      VERDICT_DB: ctx.config.dbPath,
      ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : {}),
      VERDICT_AUTH_SECRET: "",
    };
    return spawned ? spawnCli(args, env, root) : runCliInProcess(args, env, root);
  }

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-cli-user-");
    dir = ctx.dir;
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  it("adds accounts (first becomes admin), lists them, and keeps the exit-code contract", async () => {
    // The smoke test of the real process: exit code, stdout and stderr as a user sees them.
    const first = await cli(["user", "add", "--email", "Boss@Example.org", "--name", "Boss", "--role", "annotator", "--password", "boss-password", "--json"], {
      spawned: true,
    });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ user: { email: "boss@example.org", role: "admin" } });
    expect(first.stderr).toMatch(/first account, so it was made admin/);
    // The generated secret is kept in the data folder, owner-only.
    const secret = fs.statSync(path.join(dir, "auth-secret"));
    expect(secret.mode & 0o077).toBe(0);

    const second = await cli(["user", "add", "--email", "ann@example.org", "--name", "Ann", "--role", "annotator", "--json"]);
    const body = JSON.parse(second.stdout);
    expect(body.user.role).toBe("annotator");
    expect(body.password).toMatch(/^[A-Za-z0-9_-]{16}$/);

    const list = await cli(["user", "list", "--json"]);
    expect(JSON.parse(list.stdout).users.map((u: { email: string; role: string }) => [u.email, u.role])).toEqual([
      ["boss@example.org", "admin"],
      ["ann@example.org", "annotator"],
    ]);
    expect((await cli(["user", "add", "--email", "x@example.org", "--name", "X", "--role", "boss"])).code).toBe(2);
    const dup = await cli(["user", "add", "--email", "ANN@example.org", "--name", "Again", "--role", "annotator", "--json"]);
    expect(dup.code).toBe(1);
    expect(dup.stdout).toBe("");
    expect(dup.stderr).toMatch(/already exists/);
    expect(JSON.parse((await cli(["user", "set-role", "--email", "ann@example.org", "--role", "researcher", "--json"])).stdout).user.role).toBe("researcher");
  }, 300_000);

  it("imports a label CSV into a new campaign and exports it again", async () => {
    const ids = await seedTrajectories(ctx.db, 2, { taskIds: ["webarena.1", "webarena.2"], model: "gpt-4o" });
    const csvFile = path.join(dir, "annotations.csv");
    fs.writeFileSync(
      csvFile,
      "annotator_name,benchmark,task_id,model_name,trajectory_success\nA,webvoyager,webarena.1,gpt-4o,Successful\nB,webvoyager,webarena.2,gpt-4o,Unsure\n",
    );
    const imported = await cli(["labels", "import", csvFile, "--preset", "agentrewardbench", "--new-campaign", "ARB", "--json"], { spawned: true });
    expect(imported.code).toBe(0);
    const report = JSON.parse(imported.stdout);
    expect(report).toMatchObject({ created: 2, unmatchedCount: 0, annotators: ["A", "B"] });

    const out = path.join(dir, "out", "labels.jsonl");
    const exported = await cli(["labels", "export", String(report.campaignId), "--format", "jsonl", "--out", out, "--json"]);
    expect(JSON.parse(exported.stdout)).toMatchObject({ format: "jsonl", records: 3 });
    const rows = fs
      .readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.filter((r) => r.kind === "annotation").map((r) => [r.trajectory_id, r.verdict])).toEqual([
      [ids[0], "success"],
      [ids[1], "unsure"],
    ]);
    const csv = await cli(["labels", "export", String(report.campaignId)]);
    expect(csv.stdout.split("\r\n")[0]).toMatch(/^kind,campaign_id,campaign_name,item_id/);
    expect((await cli(["labels", "import", csvFile, "--preset", "nope", "--campaign", "1"])).code).toBe(2);
  }, 300_000);

  it("holds a --mapping file to the import form's rules, naming the file and the field, and imports a good one", async () => {
    await seedTrajectories(ctx.db, 1, { taskIds: ["mapped.1"], model: "gpt-4o" });
    const csvFile = path.join(dir, "mapped.csv");
    fs.writeFileSync(csvFile, "who,task,ok\nC,mapped.1,Yes\n");
    const mapping = (name: string, body: unknown) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, JSON.stringify(body));
      return file;
    };
    const typo = mapping("typo.json", { annotator: "who", verdict: "ok", taskId: "task", verdictValues: { Yes: "success" }, categroy: "why" });
    const refused = await cli(["labels", "import", csvFile, "--mapping", typo, "--new-campaign", "Typo"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--mapping ${typo}: categroy: not a mapping field`);
    const badWord = mapping("bad-word.json", { annotator: "who", verdict: "ok", taskId: "task", verdictValues: { Yes: "yes" } });
    const wrong = await cli(["labels", "import", csvFile, "--mapping", badWord, "--new-campaign", "Bad word"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`--mapping ${badWord}: verdictValues.Yes:`);
    const noAnnotator = mapping("no-annotator.json", { verdict: "ok", taskId: "task" });
    expect((await cli(["labels", "import", csvFile, "--mapping", noAnnotator, "--new-campaign", "No annotator"])).stderr).toContain(
      `--mapping ${noAnnotator}: annotator:`,
    );
    // Nothing was written by the refused ones.
    expect(JSON.parse((await cli(["labels", "campaigns", "--json"])).stdout).campaigns.map((c: { name: string }) => c.name)).not.toContain("Typo");

    const good = mapping("good.json", { annotator: "who", verdict: "ok", taskId: "task", verdictValues: { Yes: "success" } });
    const imported = await cli(["labels", "import", csvFile, "--mapping", good, "--new-campaign", "Mapped", "--json"]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 1, unmatchedCount: 0, annotators: ["C"] });
  }, 300_000);
});
