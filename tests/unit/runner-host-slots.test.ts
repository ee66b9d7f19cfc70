/**
 * Per-host concurrency of a worker's live tasks: at most `limit` tasks on one host, the rest wait in order; other
 * hosts are not held up; a cancelled wait gives its place up.
 */
import { describe, expect, it } from "vitest";
import { HostSlots } from "../../server/services/live/host-slots";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("HostSlots", () => {
  it("lets at most `limit` tasks on a host and wakes the next in order", async () => {
    const slots = new HostSlots();
    const order: string[] = [];
    const a = await slots.acquire("Example.com", 2);
    const b = await slots.acquire("example.com", 2);
    const c = slots.acquire("example.com", 2).then((release) => (order.push("c"), release));
    const d = slots.acquire("example.com", 2).then((release) => (order.push("d"), release));
    const other = await slots.acquire("other.org", 2);
    await tick();
    expect(order).toEqual([]);
    expect(slots.count("example.com")).toBe(2);
    a();
    a(); // releasing twice frees one slot only
    await tick();
    expect(order).toEqual(["c"]);
    b();
    await tick();
    expect(order).toEqual(["c", "d"]);
    (await c)();
    (await d)();
    other();
    expect(slots.count("example.com")).toBe(0);
  });

  it("a cancelled wait leaves the queue", async () => {
    const slots = new HostSlots();
    const held = await slots.acquire("x.test", 1);
    const stop = new AbortController();
    const waiting = slots.acquire("x.test", 1, stop.signal);
    stop.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    const next = slots.acquire("x.test", 1);
    held();
    (await next)();
    expect(slots.count("x.test")).toBe(0);
  });
});
