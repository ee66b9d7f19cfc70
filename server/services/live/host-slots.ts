/**
 * Per-host concurrency of a worker's live tasks: open-web sites throttle or block a burst of agents from one
 * address, so a run may say how many of its tasks are on one host at once. Tasks wait for a slot in arrival order;
 * a cancelled wait gives its place up.
 */
export class HostSlots {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  /** Resolves with a release function once fewer than `limit` tasks hold `host`. */
  async acquire(host: string, limit: number, signal?: AbortSignal): Promise<() => void> {
    const key = host.toLowerCase();
    while ((this.active.get(key) ?? 0) >= limit) {
      if (signal?.aborted) throw signal.reason ?? new Error("cancelled while waiting for a host slot");
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(key) ?? [];
        const wake = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
        const onAbort = () => {
          const q = this.waiting.get(key);
          if (q) q.splice(q.indexOf(wake), 1);
          resolve();
        };
        queue.push(wake);
        this.waiting.set(key, queue);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    }
    this.active.set(key, (this.active.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.active.get(key) ?? 1) - 1;
      if (n <= 0) this.active.delete(key);
      else this.active.set(key, n);
      this.waiting.get(key)?.shift()?.();
    };
  }

  /** Tasks currently on `host`. */
  count(host: string): number {
    return this.active.get(host.toLowerCase()) ?? 0;
  }
}
