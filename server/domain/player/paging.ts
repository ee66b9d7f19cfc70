/**
 * Step paging for the player. A trajectory can have 10,000 steps, each with kilobytes of thought and dozens of
 * Set-of-Marks elements: sent whole it was a 37 MB payload that stalled the server for everyone (security review
 * M8). The player instead gets a compact index of every step (what the filmstrip draws: screenshot, short action,
 * loop and error marks) and the full details of fixed, aligned windows of steps, fetched as the playhead nears them.
 *
 * Pure: the server packs the index and checks window requests with it, the client unpacks the index and decides
 * which windows to fetch next.
 */
import type { LoopMarks } from "./loops";

/** Steps per window of full step details (the first payload carries the first window). */
export const STEP_WINDOW = 50;
/** The most steps one window request may ask for. */
export const MAX_STEP_WINDOW = 200;
/** Within this many steps of a window's edge, the next window is fetched ahead so stepping never waits. */
export const PREFETCH_MARGIN = 15;

/** First position of the aligned window holding `position`. Windows start at multiples of `size`. */
export function windowStart(position: number, size = STEP_WINDOW): number {
  return Math.max(0, Math.floor(position / size) * size);
}

/** Why a window request cannot be served, or null when `from`..`from+count` is a valid window of `stepCount`. */
export function stepWindowProblem(from: number, count: number, stepCount: number): string | null {
  if (!Number.isInteger(from) || from < 0) return `step window "from" must be a whole number ≥ 0, got ${from}`;
  if (!Number.isInteger(count) || count < 1 || count > MAX_STEP_WINDOW) return `step window "count" must be between 1 and ${MAX_STEP_WINDOW}, got ${count}`;
  if (from >= stepCount) {
    return stepCount === 0
      ? `step window "from" ${from} is out of range: the trajectory has no steps`
      : `step window "from" ${from} is out of range: the trajectory has ${stepCount} step${stepCount === 1 ? "" : "s"} (positions 0–${stepCount - 1})`;
  }
  return null;
}

/**
 * The aligned windows the player needs for the step on screen, most urgent first: the current step's window, then
 * the one ahead (or behind) when the playhead is within `margin` of that edge. Windows already loaded are left out.
 */
export function windowsToFetch(current: number, stepCount: number, loaded: ReadonlySet<number>, opts: { size?: number; margin?: number } = {}): number[] {
  const size = opts.size ?? STEP_WINDOW;
  const margin = opts.margin ?? PREFETCH_MARGIN;
  if (stepCount <= 0) return [];
  const at = Math.max(0, Math.min(stepCount - 1, current));
  const start = windowStart(at, size);
  const wanted = [start];
  if (at + margin >= start + size && start + size < stepCount) wanted.push(start + size);
  if (at - margin < start && start > 0) wanted.push(start - size);
  return wanted.filter((w) => !loaded.has(w));
}

// ---- On the wire ----

/**
 * A value sent as its JSON text. The API's transformer (superjson) walks every object and array it sends: for a
 * 10,000-step index or a window of steps with their elements that walk took longer than building the data and held
 * the server's event loop. A string is a single leaf to it; the player parses it with `fromJsonText`.
 */
export type JsonText<T> = string & { readonly __jsonOf?: T };

export function toJsonText<T>(value: T): JsonText<T> {
  return JSON.stringify(value) as JsonText<T>;
}

export function fromJsonText<T>(text: JsonText<T>): T {
  return JSON.parse(text) as T;
}

// ---- The compact step index ----

/** What the index is built from: one row per step, in order, with only the light columns. */
export interface StepIndexInput {
  /** The screenshot the filmstrip shows (marked, else raw), or null. */
  shot: { hash: string; width: number; height: number } | null;
  /** Short action text ("click [12]", "scroll ↓"). */
  action: string;
  hasError: boolean;
  loops: LoopMarks;
}

/**
 * Every step in a few bytes: the filmstrip's thumbnail hash, its size, its short action text and its marks.
 * Column-oriented and deduplicated (sizes and action texts repeat a lot), so 10,000 steps take about half a MB.
 */
export interface PackedStepIndex {
  count: number;
  /** Per position: the screenshot's sha256 as base64url (43 characters instead of 64), another hash as `=hash`, "" for none. */
  shots: string[];
  /** Distinct [width, height] pairs; `sizeAt[i]` points into it (-1: no screenshot). */
  sizes: [number, number][];
  sizeAt: number[];
  /** Distinct short action texts; `actionAt[i]` points into it. */
  actions: string[];
  actionAt: number[];
  /** Positions of steps that recorded an error. */
  errors: number[];
  /** Only the steps with a loop marker: [position, bits (1 repeated action, 2 revisited URL, 4 same screen), repeat run, first seen at or -1]. */
  loops: [number, number, number, number][];
}

/** One step as the filmstrip and the playhead see it before its full details have been fetched. */
export interface StepIndexEntry {
  position: number;
  shot: { hash: string; width: number; height: number } | null;
  action: string;
  hasError: boolean;
  loops: LoopMarks;
}

const HEX64 = /^[0-9a-f]{64}$/;
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B64URL_VALUE = new Map([...B64URL].map((c, i) => [c, i]));

/** A sha256 hex digest as 43 base64url characters (lossless; see unpackHash). */
export function packHash(hash: string): string {
  if (!HEX64.test(hash)) return `=${hash}`;
  // Three hex digits (12 bits) make two base64url characters; the 64th digit's 4 bits make the 43rd character.
  let out = "";
  for (let i = 0; i < 63; i += 3) {
    const v = parseInt(hash.slice(i, i + 3), 16);
    out += B64URL[v >> 6]! + B64URL[v & 63]!;
  }
  return out + B64URL[parseInt(hash[63]!, 16) << 2]!;
}

export function unpackHash(packed: string): string {
  if (packed.startsWith("=")) return packed.slice(1);
  const value = (ch: string) => {
    const v = B64URL_VALUE.get(ch);
    if (v === undefined) throw new Error(`Packed screenshot hash "${packed}" has a character outside base64url: "${ch}"`);
    return v;
  };
  if (packed.length !== 43) throw new Error(`Packed screenshot hash "${packed}" should be 43 characters long, not ${packed.length}`);
  let out = "";
  for (let i = 0; i < 42; i += 2) out += ((value(packed[i]!) << 6) | value(packed[i + 1]!)).toString(16).padStart(3, "0");
  return out + (value(packed[42]!) >> 2).toString(16);
}

export function packStepIndex(rows: readonly StepIndexInput[]): PackedStepIndex {
  const packer = createStepIndexPacker();
  for (const r of rows) packer.add(r);
  return packer.result();
}

/** packStepIndex one step at a time, for callers that read a long trajectory in slices. */
export function createStepIndexPacker(): { add(row: StepIndexInput): void; result(): PackedStepIndex } {
  const sizes: [number, number][] = [];
  const sizeKeys = new Map<string, number>();
  const actions: string[] = [];
  const actionKeys = new Map<string, number>();
  const out: PackedStepIndex = { count: 0, shots: [], sizes, sizeAt: [], actions, actionAt: [], errors: [], loops: [] };
  return {
    add(r) {
      const i = out.count++;
      out.shots.push(r.shot ? packHash(r.shot.hash) : "");
      if (r.shot) {
        const key = `${r.shot.width}x${r.shot.height}`;
        let at = sizeKeys.get(key);
        if (at === undefined) {
          at = sizes.push([r.shot.width, r.shot.height]) - 1;
          sizeKeys.set(key, at);
        }
        out.sizeAt.push(at);
      } else out.sizeAt.push(-1);
      let a = actionKeys.get(r.action);
      if (a === undefined) {
        a = actions.push(r.action) - 1;
        actionKeys.set(r.action, a);
      }
      out.actionAt.push(a);
      if (r.hasError) out.errors.push(i);
      const m = r.loops;
      const bits = (m.repeatedAction ? 1 : 0) | (m.revisitedUrl ? 2 : 0) | (m.sameScreen ? 4 : 0);
      if (bits) out.loops.push([i, bits, m.repeatRun, m.firstSeenAt ?? -1]);
    },
    result: () => out,
  };
}

const NO_LOOP: LoopMarks = { repeatedAction: false, repeatRun: 1, revisitedUrl: false, firstSeenAt: null, sameScreen: false, url: null };

/** The index back as one entry per step (the URL of loop marks is not carried: the step's details have it). */
export function unpackStepIndex(p: PackedStepIndex): StepIndexEntry[] {
  const errors = new Set(p.errors);
  const loops = new Map(
    p.loops.map(([i, bits, run, first]) => [
      i,
      { repeatedAction: !!(bits & 1), repeatRun: run, revisitedUrl: !!(bits & 2), firstSeenAt: first < 0 ? null : first, sameScreen: !!(bits & 4), url: null },
    ]),
  );
  const out: StepIndexEntry[] = [];
  for (let i = 0; i < p.count; i++) {
    const packed = p.shots[i] ?? "";
    const size = p.sizes[p.sizeAt[i] ?? -1];
    out.push({
      position: i,
      shot: packed && size ? { hash: unpackHash(packed), width: size[0], height: size[1] } : null,
      action: p.actions[p.actionAt[i] ?? -1] ?? "",
      hasError: errors.has(i),
      loops: loops.get(i) ?? NO_LOOP,
    });
  }
  return out;
}
