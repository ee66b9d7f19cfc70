/**
 * Races between processes that really race: each child does its setup, prints `ready` on a line of its own and
 * waits for a line on its standard input; once every child is ready the parent releases them all at once. A slow
 * start (a busy machine can take seconds to spawn one) then delays the race instead of quietly avoiding it.
 * The child side is `await barrierReady()`; the parent's is `runAtBarrier(commands)`, which returns each child's
 * output after its `ready` line.
 */
import { spawn } from "node:child_process";
import readline from "node:readline";

/** In the child: tell the parent we are ready, and wait until it releases us. */
export async function barrierReady(): Promise<void> {
  process.stdout.write("ready\n");
  const lines = readline.createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once("line", () => resolve()));
  lines.close();
  process.stdin.pause();
}

export interface BarrierCommand {
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Starts every command, releases them together once all are ready, and returns what each printed after `ready`. */
export async function runAtBarrier(commands: BarrierCommand[]): Promise<string[]> {
  const children = commands.map((c) => spawn(c.command, c.args, { cwd: c.cwd, env: c.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] }));
  const outputs = children.map((child, i) => {
    let stdout = "";
    let stderr = "";
    let announced = false;
    let markReady!: () => void;
    const ready = new Promise<void>((r) => (markReady = r));
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      if (!announced && stdout.startsWith("ready\n")) {
        announced = true;
        stdout = stdout.slice("ready\n".length);
        markReady();
      }
    });
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<string>((resolve, reject) =>
      child.on("close", (code) => {
        if (code === 0 && announced) resolve(stdout);
        else reject(new Error(`${commands[i]!.args.join(" ")} exited ${code}${announced ? "" : " before it was ready"}:\n${stderr}`));
      }),
    );
    return { ready, exited };
  });
  // A child that dies before it is ready fails the race instead of leaving the others waiting.
  await Promise.race([Promise.all(outputs.map((o) => o.ready)), Promise.all(outputs.map((o) => o.exited))]);
  for (const child of children) child.stdin.end("go\n");
  return Promise.all(outputs.map((o) => o.exited));
}
