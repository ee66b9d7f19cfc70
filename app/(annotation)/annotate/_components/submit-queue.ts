"use client";
/**
 * Submit & next shows the next item before the server has answered (look-ahead.ts), so an annotator may label and
 * submit that item while the submit that handed it out is still on its way. This module keeps a campaign's submits in
 * order: each is sent once the one before it is answered, and not at all when that one failed or handed out another
 * item than the one it was made on (its values stay a draft in the browser, and the page says so when it is opened).
 * While a submit is on its way, leaving the page asks first. Problems of a submit whose page is no longer on screen
 * are kept here, for the label panel of that item to show when it opens.
 */

interface InFlight {
  itemNo: number;
  /** The item shown in place while this submit was on its way (its own submit must wait for this one's answer). */
  shown: number | null;
  /** Settles with the item the submit handed out (null: none), or fails. */
  done: Promise<number | null>;
}

const inFlight = new Map<number, InFlight[]>();
const problems = new Map<string, string>();

/** Said when a submit was not sent because the one before it did not hand out its item. */
export class NotSentError extends Error {}

const problemKey = (campaignId: number, itemNo: number) => `${campaignId}:${itemNo}`;

/** Item numbers of the campaign whose submits are on their way (what a look-ahead must count as labelled). */
export function pendingItems(campaignId: number): number[] {
  return (inFlight.get(campaignId) ?? []).map((f) => f.itemNo);
}

/** Settles once every submit of the campaign sent so far is answered (an undo or a skip waits for them). */
export async function submitsSettled(campaignId: number): Promise<void> {
  await Promise.allSettled((inFlight.get(campaignId) ?? []).map((f) => f.done));
}

/** What went wrong with an item's submit while another item was on screen (read once). */
export function takeProblem(campaignId: number, itemNo: number): string | null {
  const key = problemKey(campaignId, itemNo);
  const p = problems.get(key) ?? null;
  problems.delete(key);
  return p;
}

export function keepProblem(campaignId: number, itemNo: number, message: string): void {
  problems.set(problemKey(campaignId, itemNo), message);
}

function warnBeforeLeaving(e: BeforeUnloadEvent) {
  e.preventDefault();
  e.returnValue = "";
}

/**
 * Sends item `itemNo`'s submit after the campaign's submits still on their way; `shownInPlace` records the item then
 * shown in its place. Rejects with NotSentError, without sending, when the submit before it failed or handed out
 * another item than this one while this one was shown in its place.
 */
export function submitInOrder<T extends { next?: { itemNo: number } | null }>(
  campaignId: number,
  itemNo: number,
  send: () => Promise<T>,
): { result: Promise<T>; shownInPlace: (shown: number) => void } {
  const list = inFlight.get(campaignId) ?? [];
  const before = list.at(-1);
  const result = (async () => {
    if (before) {
      let handedOut: number | null;
      try {
        handedOut = await before.done;
      } catch {
        if (before.shown === itemNo) throw new NotSentError(`Not sent: the submit before it did not go through. Your label is kept as a draft.`);
        handedOut = null;
      }
      if (before.shown === itemNo && handedOut !== itemNo) {
        throw new NotSentError(`Not sent: this item was not handed to you (someone else took it). Your label is kept as a draft.`);
      }
    }
    return await send();
  })();
  const entry: InFlight = { itemNo, shown: null, done: result.then((r) => r.next?.itemNo ?? null) };
  if (list.length === 0) window.addEventListener("beforeunload", warnBeforeLeaving);
  inFlight.set(campaignId, [...list, entry]);
  const remove = () => {
    const left = (inFlight.get(campaignId) ?? []).filter((f) => f !== entry);
    if (left.length) inFlight.set(campaignId, left);
    else {
      inFlight.delete(campaignId);
      if (![...inFlight.values()].some((l) => l.length)) window.removeEventListener("beforeunload", warnBeforeLeaving);
    }
  };
  entry.done.then(remove, remove);
  return {
    result,
    shownInPlace: (shown) => {
      entry.shown = shown;
    },
  };
}
