/**
 * What the player's Network and Prompt panels show for one step of a live trajectory: the requests the browser made
 * during the step (from the trajectory's HAR, placed on steps by their start times), the tabs that were open, and the
 * exact prompt the policy sent. Researchers only: the router keeps it from anyone labelling blind.
 */
import { LRUCache } from "lru-cache";
import type { Db } from "../../../db/database";
import { stepEvidenceAt, stepEvidenceOf, trajectoryHarOf } from "../../../db/repositories/live/evidence";
import type { ScreenshotStore } from "../../storage/screenshot-store";

export interface NetworkRequest {
  method: string;
  url: string;
  /** 0 when the request got no answer (refused, aborted). */
  status: number;
  /** Bytes of the response body as transferred or decoded; null when unknown. */
  size: number | null;
  startedAt: number;
  mimeType: string | null;
}

interface HarEntry {
  startedDateTime: string;
  request: { method: string; url: string };
  response: { status: number; bodySize?: number; content?: { size?: number; mimeType?: string } };
}

const MAX_REQUESTS_SHOWN = 300;
const parsed = new LRUCache<string, NetworkRequest[]>({ max: 20 });

async function harRequests(store: ScreenshotStore, hash: string): Promise<NetworkRequest[]> {
  const cached = parsed.get(hash);
  if (cached) return cached;
  const har = JSON.parse((await store.read(hash)).toString("utf8")) as { log?: { entries?: HarEntry[] } };
  const out = (har.log?.entries ?? []).map((e) => {
    const body = e.response.bodySize !== undefined && e.response.bodySize >= 0 ? e.response.bodySize : null;
    const content = e.response.content?.size !== undefined && e.response.content.size >= 0 ? e.response.content.size : null;
    return {
      method: e.request.method,
      url: e.request.url,
      status: e.response.status > 0 ? e.response.status : 0,
      size: content ?? body,
      startedAt: Date.parse(e.startedDateTime),
      mimeType: e.response.content?.mimeType || null,
    };
  });
  out.sort((a, b) => a.startedAt - b.startedAt);
  parsed.set(hash, out);
  return out;
}

/**
 * The requests of step `index`: those started from the step's start until the next step's. Step 0 also gets the
 * requests of opening the start page, which happen before it.
 */
export function requestsOfStep(requests: NetworkRequest[], starts: number[], index: number): NetworkRequest[] {
  const from = index === 0 ? -Infinity : starts[index]!;
  const to = index + 1 < starts.length ? starts[index + 1]! : Infinity;
  return requests.filter((r) => r.startedAt >= from && r.startedAt < to);
}

export async function liveStepEvidence(deps: { db: Db; store: ScreenshotStore }, trajectoryId: number, index: number) {
  const [here, har] = await Promise.all([stepEvidenceAt(deps.db, trajectoryId, index), trajectoryHarOf(deps.db, trajectoryId)]);
  let network: { requests: NetworkRequest[]; total: number; harHash: string; harEntries: number } | null = null;
  if (har && here) {
    const starts = (await stepEvidenceOf(deps.db, trajectoryId)).map((e) => e.startedAt);
    const all = requestsOfStep(await harRequests(deps.store, har.harHash), starts, index);
    network = { requests: all.slice(0, MAX_REQUESTS_SHOWN), total: all.length, harHash: har.harHash, harEntries: har.entries };
  }
  return {
    recorded: !!here,
    tabs: here?.tabs ?? null,
    prompt: here?.prompt ?? null,
    network,
  };
}
