/**
 * The single-machine runtime (the quick start's last step): the web server (`next start`, with the arguments given
 * here) and one worker process beside it, which runs every background job (imports, judge calls, live runs) under
 * its memory cap and is started again whenever it dies (server/services/jobs/supervisor.ts). Ctrl-C or SIGTERM stops
 * both: the worker hands its jobs back first. When the web server exits, the worker is stopped and this exits too.
 *
 *   node --import tsx scripts/serve.ts -p 3000 -H 127.0.0.1
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { superviseWorker } from "../server/services/jobs/supervisor";
import { repoRoot, settingsOrExit, stderrLog } from "./start-up";

const log = stderrLog("verdict");
const settings = settingsOrExit();

const worker = superviseWorker({ root: repoRoot, maxHeapMb: settings.VERDICT_WORKER_MAX_HEAP_MB, env: process.env, log });
const web = spawn(process.execPath, [path.join(repoRoot, "node_modules", "next", "dist", "bin", "next"), "start", ...process.argv.slice(2)], {
  cwd: repoRoot,
  env: process.env,
  stdio: ["ignore", "inherit", "inherit"],
});

let stopping = false;
const stopAll = async (exitCode: number) => {
  if (stopping) return;
  stopping = true;
  if (web.exitCode === null && web.signalCode === null) web.kill("SIGTERM");
  await worker.stop();
  process.exit(exitCode);
};
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    log(`${sig}: stopping the web server and the worker`);
    void stopAll(130);
  });
}
web.on("exit", (code, signal) => {
  if (!stopping) log(`the web server ${signal ? `was killed (${signal})` : `exited with code ${code}`}; stopping the worker`);
  void stopAll(code ?? 1);
});
