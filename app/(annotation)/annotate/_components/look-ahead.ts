"use client";
/**
 * Submit & next without waiting for the next page (issue 30, item 7). While the annotator works on an item, the label
 * panel asks the server which item they would most likely be handed next (`labelling.lookAhead`: a read that reserves
 * nothing, so another annotator may still take that item) and gets that item's player data and the annotator's own
 * label on it, then fetches and decodes its first screenshot. When the look-ahead has answered by the time Submit &
 * next is sent, the page changes to that item in place at once, without waiting for the server: its data goes into
 * the query cache, the address changes through `history.pushState` (the workspace follows the address, see
 * LabellingItems), and no page is requested. Submit & next still stores the label and reserves on the server; when
 * its answer hands out another item (someone took this one, a gold turn) the page goes there, and when the submit
 * fails the item submitted comes back with its values and the problem (label-panel's useLabelActions). A submit made
 * on the item shown in place waits for the one that handed it out (submit-queue.ts). When the look-ahead answers only
 * after the submit, the item shows in place once both are there, as before.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import { fromJsonText } from "@/server/domain/player/paging";
import { useTRPC } from "../../../_trpc/client";
import type { PlayerData } from "../../../trajectories/[id]/_components/player";
import { prefetchImage, stageImageUrl } from "../../../trajectories/[id]/_components/step-stage";
import type { MyLabel } from "./label-panel";
import { pendingItems } from "./submit-queue";

/** How long Submit & next waits for a look-ahead still under way before going the usual way. */
const DATA_WAIT_MS = 3_000;
/** How long it waits for the next screenshot's decode once the data is there (then it shows the item, the image following). */
const DECODE_WAIT_MS = 300;

export interface Ahead {
  itemNo: number;
  item: PlayerData;
  mine: MyLabel;
  decoded: Promise<void>;
}

/**
 * The first screenshot of an item as the stage will show it: sized from the stage on screen now (the next item is
 * shown in the same place), fetched and decoded.
 */
function decodeFirstScreenshot(item: PlayerData): Promise<void> {
  const first = item.window.from === 0 ? fromJsonText(item.window.steps)[0] : undefined;
  const stage = document.querySelector('[data-testid="step-stage-area"]')?.getBoundingClientRect();
  const url = first && stage ? stageImageUrl(first, false, { width: stage.width, height: stage.height }) : null;
  return url ? prefetchImage(url, "low") : Promise.resolve();
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The look-ahead from item `itemNo` (asked once the panel shows, when `enabled`; counting the campaign's submits still
 * on their way as stored, see submit-queue.ts), and two ways to use it for Submit & next:
 * - `ready`: the look-ahead's answer once it is there (null: nothing to look ahead to, or it failed), for the page to
 *   show that item as the submit is sent, before the server has answered (`show`, with nothing to undo yet);
 * - `open`, called with the item the server handed out and the submit just made (what "undo" reverts from the next
 *   item): true when it showed that item in place, false when the page must navigate.
 */
export function useLookAhead(campaignId: number, itemNo: number, enabled: boolean) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef<Promise<Ahead | null> | null>(null);

  useEffect(() => {
    if (!enabled) return;
    const inFlight = pendingItems(campaignId).filter((n) => n !== itemNo);
    pending.current = queryClient
      .fetchQuery({
        ...trpc.labelling.lookAhead.queryOptions({ campaignId, itemNo, ...(inFlight.length ? { pending: inFlight } : {}) }),
        staleTime: 0,
        gcTime: 0,
      })
      .then((a) => (a ? { ...a, item: a.item as PlayerData, decoded: decodeFirstScreenshot(a.item as PlayerData) } : null))
      // A failed look-ahead only means Submit & next goes the usual way.
      .catch(() => null);
    return () => {
      pending.current = null;
    };
  }, [enabled, campaignId, itemNo, queryClient, trpc]);

  /** Puts the item looked ahead to on screen: its data into the query cache, its address into the history. */
  const show = useCallback(
    (ahead: Ahead, undoable: { revisionId: number; itemNo: number } | null) => {
      queryClient.setQueryData(trpc.labelling.item.queryKey({ campaignId, itemNo: ahead.itemNo }), ahead.item);
      // Its label as the look-ahead read it; "undo" there reverts the submit that handed it out, once that is stored.
      queryClient.setQueryData(trpc.labelling.mine.queryKey({ campaignId, itemNo: ahead.itemNo }), { ...ahead.mine, undoable });
      window.history.pushState(null, "", `/annotate/${campaignId}/${ahead.itemNo}`);
    },
    [campaignId, queryClient, trpc],
  );

  /** The submit that handed out the item shown in place is stored: "undo" there reverts it. */
  const stored = useCallback(
    (shown: number, submitted: { revisionId: number; itemNo: number }) => {
      queryClient.setQueryData(trpc.labelling.mine.queryKey({ campaignId, itemNo: shown }), (m: MyLabel | undefined) => m && { ...m, undoable: submitted });
    },
    [campaignId, queryClient, trpc],
  );

  const ready = useCallback((): Promise<Ahead | null> | null => pending.current, []);

  const open = useCallback(
    async (nextItemNo: number, submitted: { revisionId: number; itemNo: number }): Promise<boolean> => {
      const p = pending.current;
      if (!p) return false;
      const ahead = await Promise.race([p, wait(DATA_WAIT_MS).then(() => null)]);
      if (!ahead || ahead.itemNo !== nextItemNo) return false;
      await Promise.race([ahead.decoded, wait(DECODE_WAIT_MS)]);
      show(ahead, submitted);
      return true;
    },
    [show],
  );
  return { ready, show, stored, open };
}
