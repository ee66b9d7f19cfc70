/**
 * Submit & next's order of submits (app/(annotation)/annotate/_components/submit-queue.ts): the page shows the next
 * item before the server has answered, so a submit made on that item must wait for the one that handed it out, and
 * must not be sent at all when that one failed or handed out another item. Leaving the page asks first while a submit
 * is on its way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";

type Listener = (e: unknown) => void;
const listeners = new Map<string, Set<Listener>>();
const saved = (globalThis as { window?: unknown }).window;

beforeAll(() => {
  (globalThis as { window?: unknown }).window = {
    addEventListener: (type: string, l: Listener) => listeners.set(type, (listeners.get(type) ?? new Set()).add(l)),
    removeEventListener: (type: string, l: Listener) => listeners.get(type)?.delete(l),
  };
});
afterAll(() => {
  (globalThis as { window?: unknown }).window = saved;
});

const { NotSentError, pendingItems, submitInOrder, submitsSettled, keepProblem, takeProblem } =
  await import("../../app/(annotation)/annotate/_components/submit-queue");

/** A send the test answers by hand, recording when it was called. */
function manualSend(log: string[], name: string) {
  let answer!: (r: { next: { itemNo: number } | null }) => void;
  let refuse!: (e: Error) => void;
  const send = () => {
    log.push(`sent ${name}`);
    return new Promise<{ next: { itemNo: number } | null }>((res, rej) => {
      answer = res;
      refuse = rej;
    });
  };
  return { send, answer: (next: number | null) => answer({ next: next === null ? null : { itemNo: next } }), refuse: (m: string) => refuse(new Error(m)) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("submit queue", () => {
  it("sends a submit made on the item shown in place only after the one that handed it out, and lets others run", async () => {
    const log: string[] = [];
    const a = manualSend(log, "1");
    const first = submitInOrder(1, 1, a.send);
    first.shownInPlace(2);
    expect(pendingItems(1)).toEqual([1]);
    expect(listeners.get("beforeunload")?.size).toBe(1);
    const b = manualSend(log, "2");
    const second = submitInOrder(1, 2, b.send);
    // Another campaign's submit does not wait.
    const other = manualSend(log, "other");
    const third = submitInOrder(9, 5, other.send);
    await tick();
    expect(log).toEqual(["sent 1", "sent other"]);
    expect(pendingItems(1)).toEqual([1, 2]);
    a.answer(2);
    await tick();
    expect(log).toEqual(["sent 1", "sent other", "sent 2"]);
    b.answer(3);
    other.answer(null);
    await expect(second.result).resolves.toEqual({ next: { itemNo: 3 } });
    await third.result;
    await first.result;
    await submitsSettled(1);
    await tick();
    expect(pendingItems(1)).toEqual([]);
    expect(listeners.get("beforeunload")?.size).toBe(0);
  });

  it("does not send a submit whose item the one before did not hand out, nor one after a failed submit", async () => {
    const log: string[] = [];
    const a = manualSend(log, "1");
    submitInOrder(2, 1, a.send).shownInPlace(2);
    const b = manualSend(log, "2");
    const second = submitInOrder(2, 2, b.send);
    a.answer(7);
    await expect(second.result).rejects.toBeInstanceOf(NotSentError);
    await expect(second.result).rejects.toThrow(/not handed to you/);

    const c = manualSend(log, "3");
    const third = submitInOrder(2, 3, c.send);
    third.shownInPlace(4);
    const d = manualSend(log, "4");
    const fourth = submitInOrder(2, 4, d.send);
    await tick();
    c.refuse("marks: mark 1 lies outside the screenshot");
    await expect(third.result).rejects.toThrow(/outside the screenshot/);
    await expect(fourth.result).rejects.toThrow(/did not go through/);
    expect(log).toEqual(["sent 1", "sent 3"]);
  });

  it("sends a submit on another item after a failed one, which it does not depend on", async () => {
    const log: string[] = [];
    const a = manualSend(log, "1");
    const first = submitInOrder(3, 1, a.send);
    const b = manualSend(log, "8");
    const other = submitInOrder(3, 8, b.send);
    a.refuse("closed");
    await expect(first.result).rejects.toThrow("closed");
    await tick();
    expect(log).toEqual(["sent 1", "sent 8"]);
    b.answer(null);
    await expect(other.result).resolves.toEqual({ next: null });
  });

  it("keeps a problem for the item's panel, read once", () => {
    keepProblem(4, 2, "Item 2 was adjudicated");
    expect(takeProblem(4, 3)).toBeNull();
    expect(takeProblem(4, 2)).toBe("Item 2 was adjudicated");
    expect(takeProblem(4, 2)).toBeNull();
  });
});
