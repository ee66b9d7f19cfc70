/**
 * A terminal progress bar on stderr (cli-progress), redrawn in place; silent when stderr is not a terminal or
 * when the command was asked for machine output (`--json`), so stdout and logs stay clean.
 */
import { SingleBar, type Options } from "cli-progress";
import type { CliIO } from "./types";

export interface ProgressBar {
  /** `force` draws at once, even within the frame-rate throttle (for slow, infrequent steps). */
  update(done: number, total: number | null, note?: string, force?: boolean): void;
  finish(): void;
}

const SILENT: ProgressBar = { update() {}, finish() {} };

export function createProgressBar(io: CliIO, label: string, opts: { enabled?: boolean } = {}): ProgressBar {
  if (!io.interactive || opts.enabled === false) return SILENT;
  const options: Options = {
    stream: process.stderr,
    fps: 12,
    barsize: 28,
    barCompleteChar: "█",
    barIncompleteChar: "░",
    clearOnComplete: true,
    hideCursor: true,
    // While the total is unknown there is no bar or ETA, only the count.
    format: (o, params, payload: { known: boolean; note: string }) => {
      const note = payload.note.slice(0, 40);
      if (!payload.known) return `${label} ${"".padEnd(o.barsize ?? 28, "·")} ${params.value} done ${note}`;
      const filled = Math.round(Math.min(1, params.progress) * (o.barsize ?? 28));
      const bar = "█".repeat(filled) + "░".repeat((o.barsize ?? 28) - filled);
      const eta = Number.isFinite(params.eta) ? `${params.eta}s` : "…";
      return `${label} ${bar} ${params.value}/${params.total} ${Math.round(params.progress * 100)}% ETA ${eta} ${note}`;
    },
  };
  const bar = new SingleBar(options);
  let started = false;
  return {
    update(done, total, note = "", force = false) {
      const payload = { known: total !== null && total > 0, note };
      if (!started) {
        bar.start(payload.known ? total! : 0, done, payload);
        started = true;
        return;
      }
      if (payload.known && bar.getTotal() !== total) bar.setTotal(total!);
      bar.update(done, payload);
      if (force) bar.render();
    },
    finish() {
      if (started) bar.stop();
      started = false;
    },
  };
}
