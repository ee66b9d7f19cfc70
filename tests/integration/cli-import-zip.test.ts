/**
 * `npm run cli -- import <file>.zip` takes a zip of any format the Import page takes: a Verdict bundle is read in
 * place; anything else is unpacked (within the zip limits) and imported as the folder or file it holds. The report
 * names files as "<zip>: <path inside it>", a second import of the same zip changes nothing, and nothing unpacked is
 * left behind. Run in-process: the command with a CliIO of its own, on a throwaway database and data folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import yazl from "yazl";
import { importCommand } from "../../server/cli/commands/import";
import type { CliIO } from "../../server/cli/types";
import { experimentLog, summary, writeExperiment } from "../helpers/browsergym-fixture";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-cli-zip-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

async function importCli(args: string[]): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    interactive: false,
    env: { ...process.env, VERDICT_DATA_DIR: path.join(dir, "data"), VERDICT_DB: path.join(dir, "cli.db") },
    cwd: dir,
  };
  const code = await importCommand.run([...args, "--json", "--no-warm"], io);
  return { code, json: JSON.parse(stdout) as Record<string, unknown>, stderr };
}

/** Zips `folder` with its entries under `prefix/` (or at the top when prefix is empty). */
async function zipOf(folder: string, file: string, prefix: string): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const rel of fs.readdirSync(folder, { recursive: true }) as string[]) {
    const abs = path.join(folder, rel);
    const name = rel.split(path.sep).join("/");
    if (fs.statSync(abs).isFile()) zip.addFile(abs, prefix ? `${prefix}/${name}` : name);
  }
  zip.end();
  await new Promise<void>((r) => zip.outputStream.pipe(fs.createWriteStream(file)).on("close", () => r()));
  return file;
}

const unpackedLeft = () => (fs.existsSync(path.join(dir, "data", "imports")) ? fs.readdirSync(path.join(dir, "data", "imports")) : []);

describe("import <zip> on the command line", () => {
  it("a zip of WebVoyager results: imported, named as inside the zip, unchanged the second time, nothing left unpacked", async () => {
    const src = await writeWebVoyagerFixture(path.join(dir, "src", "20250101_10_00_00"), [
      { id: "Zip--1", intent: "Zip one.", url: "https://zip.test/", actions: ["Click [0]", "ANSWER; a"] },
      { id: "Zip--2", intent: "Zip two.", url: "https://zip.test/", actions: ["Click [0]", "ANSWER; b"] },
    ]);
    fs.writeFileSync(path.join(src, "taskZip--2", "screenshot1.png"), "not an image");
    const zip = await zipOf(path.join(dir, "src"), path.join(dir, "results.zip"), "results");

    const first = await importCli(["results.zip"]);
    expect(first.code).toBe(3);
    expect(first.json).toMatchObject({ format: "webvoyager", created: 1 });
    expect(first.json.skipped).toEqual([
      { path: "results.zip: results/20250101_10_00_00/taskZip--2/screenshot1.png", reason: "is not a PNG, JPEG, WebP or GIF image" },
    ]);
    expect((first.json.trajectories as { sourcePath: string }[])[0]!.sourcePath).toBe("results.zip: results/20250101_10_00_00/taskZip--1");
    expect(unpackedLeft()).toEqual([]);

    const again = await importCli([zip]);
    expect(again.json).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
    expect(unpackedLeft()).toEqual([]);
  });

  it("a zip of a BrowserGym study and a zip of one task file are read as what they hold", async () => {
    const study = path.join(dir, "study");
    await writeExperiment(study, {
      agent: "DemoAgentArgs",
      task: "workarena.servicenow.knowledge-base-search",
      seed: 5,
      screenshots: [0, 1],
      summary: summary(1, { cum_reward: 1 }),
      log: experimentLog({
        expName: "DemoAgentArgs_on_workarena.servicenow.knowledge-base-search_5",
        goal: "Find it.",
        actions: ['send_msg_to_user("found")'],
      }),
    });
    const bg = await importCli([await zipOf(study, path.join(dir, "study.zip"), "")]);
    expect(bg.code).toBe(0);
    expect(bg.json).toMatchObject({ format: "browsergym", created: 1 });

    const tasks = path.join(dir, "tasks");
    fs.mkdirSync(tasks);
    fs.writeFileSync(
      path.join(tasks, "WebVoyager_data.jsonl"),
      `${JSON.stringify({ web_name: "Zip", id: "Zip--7", ques: "A task from a zip.", web: "https://zip.test/" })}\n`,
    );
    const t = await importCli([await zipOf(tasks, path.join(dir, "tasks.zip"), "")]);
    expect(t.code).toBe(0);
    expect(t.json).toMatchObject({ format: "webvoyager-tasks", tasks: { created: 1 } });
  });

  it("a zip that holds nothing importable fails naming the zip, not the folder it was unpacked into", async () => {
    const junk = path.join(dir, "junk");
    fs.mkdirSync(path.join(junk, "notes"), { recursive: true });
    fs.writeFileSync(path.join(junk, "notes", "readme.txt"), "nothing to see");
    await zipOf(junk, path.join(dir, "junk.zip"), "");
    const r = await importCli(["junk.zip"]);
    expect(r.code).toBe(1);
    expect(String(r.json.error)).toMatch(/^junk\.zip: notes: cannot tell which format this is/);
    expect(String(r.json.error)).not.toContain(path.join(dir, "data"));
    expect(unpackedLeft()).toEqual([]);
  });
});
