/**
 * VERDICT_DEBUG is a switch like the others (1/0, true/false, yes/no), read by the configuration: with it on, a failed
 * command prints the error's stack trace after its message (the import command's own error path too); off, or unset,
 * only the message; a value that is not a switch stops the command with the variable's name and what is wrong.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "../helpers/cli";

describe("VERDICT_DEBUG in the command line", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-cli-debug-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const env = (debug: string | undefined) => {
    const e: NodeJS.ProcessEnv = { ...process.env, VERDICT_DATA_DIR: path.join(dir, "data"), VERDICT_DB: path.join(dir, "data", "cli.db") };
    if (debug === undefined) delete e.VERDICT_DEBUG;
    else e.VERDICT_DEBUG = debug;
    return e;
  };
  const stackLine = /\n\s+at .*deployment-profiles\.ts:\d+/;

  it("prints the stack trace of a failed command when on, only the message when off or unset", async () => {
    for (const on of ["1", "true", "yes"]) {
      const r = await runCliInProcess(["deployment-profile", "show", "nope"], env(on));
      expect(r.code, on).toBe(1);
      expect(r.stderr, on).toMatch(/^Error: No deployment profile with id "nope"\n/);
      expect(r.stderr, on).toMatch(stackLine);
    }
    for (const off of ["0", "false", "no", "", undefined]) {
      const r = await runCliInProcess(["deployment-profile", "show", "nope"], env(off));
      expect(r.code, String(off)).toBe(1);
      expect(r.stderr, String(off)).toBe('Error: No deployment profile with id "nope"\n');
    }
  });

  it("reaches the import command's own error report", async () => {
    const missing = path.join(dir, "missing.zip");
    const on = await runCliInProcess(["import", missing], env("1"));
    expect(on.code).toBe(1);
    expect(on.stderr).toContain(`Error: ${missing}: no such file or folder\n`);
    expect(on.stderr).toMatch(/\n\s+at .*ingest\.ts:\d+/);
    const off = await runCliInProcess(["import", missing], env("0"));
    expect(off.stderr).toBe(`Error: ${missing}: no such file or folder\n`);
  });

  it("refuses a value that is not a switch, naming the variable, before running the command", async () => {
    const r = await runCliInProcess(["deployment-profile", "show", "nope"], env("maybe"));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error: VERDICT_DEBUG must be 1 or 0 (true/false, yes/no), got "maybe"\n');
  });
});
