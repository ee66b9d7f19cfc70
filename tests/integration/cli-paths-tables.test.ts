/**
 * The CLI as someone types it: `npm run cli` starts in Verdict's folder, so relative paths must be read against the
 * folder the user was in (INIT_CWD), and tables print every name whole however long it is.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../server/cli/main";
import { formatTable } from "../../server/cli/table";
import { writeWebVoyagerFixture } from "../helpers/webvoyager-fixture";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..", "..");
let dir: string;
let work: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-cli-paths-"));
  // The user's own folder, somewhere other than Verdict's.
  work = path.join(dir, "study");
  fs.mkdirSync(work);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function cliIn(io: { cwd: string }, argv: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(argv, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    interactive: false,
    env: { ...process.env, VERDICT_DATA_DIR: path.join(dir, "data"), VERDICT_DB: path.join(dir, "data", "in-process.db") },
    cwd: io.cwd,
  });
  return { code, out, err };
}

const LONG_A = "Evaluator with a rather long name (first pass, 2025)";
const LONG_B = "Evaluator with a rather long name (second pass, 2025)";

describe("CLI paths and tables", { timeout: 240_000 }, () => {
  it("npm run cli reads relative paths against the folder it was typed in (INIT_CWD), not Verdict's folder", async () => {
    await writeWebVoyagerFixture(path.join(work, "results"), [{ id: "Here--1", intent: "Find it here.", url: "https://here.test/", actions: ["ANSWER; yes"] }]);
    // What npm does: the script runs in the package folder, INIT_CWD names the user's folder.
    const r = await run(process.execPath, ["--import", "tsx", path.join(root, "scripts", "cli.ts"), "import", "results", "--json"], {
      cwd: root,
      env: { ...process.env, INIT_CWD: work, VERDICT_DATA_DIR: path.join(dir, "spawned"), VERDICT_DB: path.join(dir, "spawned", "cli.db") },
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 1, skipped: [] });
  });

  it("path arguments and flags resolve against the user's folder: agreement csv, agreement-vectors --out", async () => {
    fs.writeFileSync(
      path.join(work, "ratings.csv"),
      [
        "item,rater,label",
        ...["a", "b", "c", "d"].flatMap((item, i) => [`${item},"${LONG_A}",${i % 2 ? "yes" : "no"}`, `${item},"${LONG_B}",${i < 3 ? "yes" : "no"}`]),
      ].join("\n") + "\n",
    );
    const agreement = await cliIn({ cwd: work }, [
      "agreement",
      "csv",
      "ratings.csv",
      "--item",
      "item",
      "--rater",
      "rater",
      "--label",
      "label",
      "--min-shared",
      "2",
    ]);
    expect(agreement.err).toBe("");
    expect(agreement.code).toBe(0);
    // Both names whole in the pairwise table and in the matrix (they were cut at 24 and 16 characters).
    const lines = agreement.out.split("\n");
    expect(lines.filter((l) => l.includes(LONG_A) && l.includes(LONG_B)).length).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.trimStart().startsWith(LONG_B) && l.includes("—"))).toBe(true);

    fs.writeFileSync(path.join(work, "vectors.json"), JSON.stringify({ cases: [] }));
    const written = await cliIn({ cwd: work }, ["agreement-vectors", "vectors.json", "--out", "out/results.json", "--json"]);
    expect(written.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(work, "out", "results.json"), "utf8"))).toEqual({});
    expect(fs.existsSync(path.join(root, "out", "results.json"))).toBe(false);
  });
});

describe("formatTable", () => {
  it("widens columns to the longest cell and never shortens a name", () => {
    const names = ["short", "a name much longer than any fixed column width would allow for"];
    const lines = formatTable(
      [{ header: "rater" }, { header: "κ", align: "right" }, { header: "note" }],
      [
        [names[0]!, "0.500", "ok"],
        [names[1]!, "-0.125", ""],
      ],
    );
    expect(lines[1]).toContain(names[0]);
    expect(lines[2]).toContain(names[1]);
    // Columns line up: the κ column ends at the same place on every line.
    const ends = lines.map((l) =>
      l.indexOf("κ") >= 0 ? l.indexOf("κ") + 1 : l.indexOf(l.includes("0.500") ? "0.500" : "-0.125") + (l.includes("0.500") ? 5 : 6),
    );
    expect(new Set(ends).size).toBe(1);
    // No trailing spaces when the last cell is empty.
    expect(lines[2]).toBe(lines[2]!.trimEnd());
  });
});
