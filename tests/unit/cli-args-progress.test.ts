import { describe, expect, it, vi } from "vitest";
import { parseArgs, UsageError } from "../../server/cli/args";
import { createProgressBar } from "../../server/cli/progress";
import type { CliIO } from "../../server/cli/types";

describe("CLI arguments", () => {
  it("keeps every value of a repeatable flag, in order", () => {
    const a = parseArgs(["src", "--eval-log", "a.log", "--json", "--eval-log=b.log"], { valueFlags: ["eval-log"], boolFlags: ["json"] });
    expect(a.repeated.get("eval-log")).toEqual(["a.log", "b.log"]);
    expect(a.flags.get("eval-log")).toBe("b.log");
    expect(a.positionals).toEqual(["src"]);
    expect(() => parseArgs(["--eval-log"], { valueFlags: ["eval-log"] })).toThrow(new UsageError("--eval-log needs a value"));
  });
});

describe("CLI arguments of a command that takes no positionals", () => {
  it("refuses positionals, naming them, and reads the flags otherwise", () => {
    const spec = { valueFlags: ["as"], boolFlags: ["json"], noPositionals: true };
    expect(() => parseArgs(["extra", "--json", "more"], spec)).toThrow(new UsageError("unexpected arguments: extra more"));
    expect(() => parseArgs(["--json", "--", "--as"], spec)).toThrow(new UsageError("unexpected arguments: --as"));
    expect(parseArgs(["--as", "a@b.c", "--json"], spec)).toMatchObject({
      positionals: [],
      flags: new Map<string, string | true>([
        ["as", "a@b.c"],
        ["json", true],
      ]),
    });
    // Without the option the positionals are the command's to read.
    expect(parseArgs(["extra"], { boolFlags: ["json"] }).positionals).toEqual(["extra"]);
  });
});

describe("progress bar", () => {
  const io = (interactive: boolean): CliIO => ({ stdout: vi.fn(), stderr: vi.fn(), interactive, env: {} as NodeJS.ProcessEnv });

  it("draws nothing when stderr is not a terminal, or with --json", () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      for (const [cli, enabled] of [
        [io(false), true],
        [io(true), false],
      ] as const) {
        const bar = createProgressBar(cli, "Importing", { enabled });
        bar.update(1, 10, "a");
        bar.update(10, 10, "b", true);
        bar.finish();
        expect(cli.stdout).not.toHaveBeenCalled();
        expect(cli.stderr).not.toHaveBeenCalled();
      }
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
    }
  });

  it("draws on stderr, never stdout, on a terminal", () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    // Under the test runner stderr is a pipe; cli-progress draws only on a terminal.
    const wasTTY = process.stderr.isTTY;
    process.stderr.isTTY = true;
    try {
      const bar = createProgressBar(io(true), "Importing");
      bar.update(3, 10, "task 3", true);
      bar.finish();
      expect(out).not.toHaveBeenCalled();
      expect(err.mock.calls.map((c) => String(c[0])).join("")).toContain("Importing");
      expect(err.mock.calls.map((c) => String(c[0])).join("")).toContain("3/10");
    } finally {
      process.stderr.isTTY = wasTTY;
      out.mockRestore();
      err.mockRestore();
    }
  });
});
