"use client";
/**
 * Submit & next without waiting for the next page (issue 30, item 7). While the annotator works on an item, the label
 * panel asks the server which item they would most likely be handed next (`labelling.lookAhead`: a read that reserves
 * nothing, so another annotator may still take that item) and gets that item's player data and the annotator's own
 * label on it, then fetches and decodes its first screenshot. Submit & next still reserves on the server; when the item
 * it hands out is the one looked ahead to, the page changes to it in place: its data goes into the query cache, the
 * address changes through `history.pushState` (the workspace follows the address, see LabellingItems), and no page is
 * requested. Any other answer (someone took the item, a gold turn, the look-ahead failed) goes the usual way.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import { fromJsonText } from "@/server/domain/player/paging";
import { useTRPC } from "../../../_trpc/client";
import type { PlayerData } from "../../../trajectories/[id]/_components/player";
import { prefetchImage, stageImageUrl } from "../../../trajectories/[id]/_components/step-stage";
import type { MyLabel } from "./label-panel";

/** How long Submit & next waits for a look-ahead still under way before going the usual way. */
const DATA_WAIT_MS = 3_000;
/** How long it waits for the next screenshot's decode once the data is there (then it shows the item, the image following). */
const DECODE_WAIT_MS = 300;

interface Ahead {
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
 * The look-ahead from item `itemNo` (asked once the panel shows, when `enabled`), and `open`, which Submit & next calls
 * with the item the server handed out and the submit just made (what "undo" reverts from the next item): true when it
 * showed that item in place, false when the page must navigate.
 */
export function useLookAhead(campaignId: number, itemNo: number, enabled: boolean) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useRef<Promise<Ahead | null> | null>(null);

  useEffect(() => {
    if (!enabled) return;
    pending.current = queryClient
      .fetchQuery({ ...trpc.labelling.lookAhead.queryOptions({ campaignId, itemNo }), staleTime: 0, gcTime: 0 })
      .then((a) => (a ? { ...a, item: a.item as PlayerData, decoded: decodeFirstScreenshot(a.item as PlayerData) } : null))
      // A failed look-ahead only means Submit & next goes the usual way.
      .catch(() => null);
    return () => {
      pending.current = null;
    };
  }, [enabled, campaignId, itemNo, queryClient, trpc]);

  const open = useCallback(
    async (nextItemNo: number, submitted: { revisionId: number; itemNo: number }): Promise<boolean> => {
      const p = pending.current;
      if (!p) return false;
      const ahead = await Promise.race([p, wait(DATA_WAIT_MS).then(() => null)]);
      if (!ahead || ahead.itemNo !== nextItemNo) return false;
      await Promise.race([ahead.decoded, wait(DECODE_WAIT_MS)]);
      const mineKey = trpc.labelling.mine.queryKey({ campaignId, itemNo: nextItemNo });
      queryClient.setQueryData(trpc.labelling.item.queryKey({ campaignId, itemNo: nextItemNo }), ahead.item);
      // "Undo" on the next item reverts the submit just made; the rest of the label is read again once it shows.
      queryClient.setQueryData(mineKey, { ...ahead.mine, undoable: submitted });
      await queryClient.invalidateQueries({ queryKey: mineKey, refetchType: "none" });
      window.history.pushState(null, "", `/annotate/${campaignId}/${nextItemNo}`);
      return true;
    },
    [campaignId, queryClient, trpc],
  );
  return open;
}
