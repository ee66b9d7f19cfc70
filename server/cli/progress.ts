/**
 * A terminal progress bar on stderr, redrawn in place; silent when stderr is not a terminal.
 */
import type { CliIO } from "./types";

export function createProgressBar(io: CliIO, label: string) {
  let lastDraw = 0;
  const started = Date.now();
  function draw(done: number, total: number | null, note = "", force = false) {
    if (!io.interactive) return;
    const now = Date.now();
    if (!force && now - lastDraw < 80) return;
    lastDraw = now;
    const width = 28;
    const elapsed = (now - started) / 1000;
    let bar: string;
    let tail: string;
    if (total && total > 0) {
      const frac = Math.min(1, done / total);
      const filled = Math.round(frac * width);
      bar = "█".repeat(filled) + "░".repeat(width - filled);
      const eta = done > 0 ? (elapsed / done) * (total - done) : 0;
      tail = `${done}/${total} ${(frac * 100).toFixed(0)}% ETA ${eta.toFixed(0)}s`;
    } else {
      bar = "".padEnd(width, "·");
      tail = `${done} done`;
    }
    io.stderr(`\r\x1b[2K${label} ${bar} ${tail} ${note.slice(0, 40)}`);
  }
  return {
    update: draw,
    finish() {
      if (io.interactive) io.stderr("\r\x1b[2K");
    },
  };
}
