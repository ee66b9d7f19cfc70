/**
 * Worker processes a bench runs side by side (the queue and judge benches), like a deployment's workers: each is a
 * `node --import tsx` child that writes a line to stdout when it is ready and starts its work on "go" on stdin, so
 * their start-up time is not measured.
 */
import { spawn } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..", "..");

export interface BenchChildren {
  /** Tells every child to start. */
  go(): void;
  /** Settles when every child has exited: rejected with the last of its stderr when one exits with an error. */
  done: Promise<void>;
}

/**
 * Starts `count` children of `script` with the arguments `args(w)` for the w-th, and waits until all are ready (or
 * all have exited: then `done` says why). `name(w)` names a child in an error.
 */
export async function startBenchChildren(count: number, script: string, args: (w: number) => string[], name: (w: number) => string): Promise<BenchChildren> {
  const procs = Array.from({ length: count }, (_, w) => {
    const proc = spawn(process.execPath, ["--import", "tsx", script, ...args(w)], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    let err = "";
    proc.stderr.on("data", (d) => (err += d));
    const ready = new Promise<void>((resolve) => proc.stdout.once("data", () => resolve()));
    const exit = new Promise<void>((resolve, reject) =>
      proc.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${name(w)} exited ${code}: ${err.slice(-500)}`)))),
    );
    return { proc, ready, exit };
  });
  await Promise.race([Promise.all(procs.map((p) => p.ready)), Promise.all(procs.map((p) => p.exit))]);
  return {
    go: () => {
      for (const p of procs) p.proc.stdin.end("go\n");
    },
    done: Promise.all(procs.map((p) => p.exit)).then(() => undefined),
  };
}
