"use client";
/**
 * The current step, large: the screenshot fitted into the free space (never upscaled), the overlay on top,
 * and a status line with the page URL and the step's notices. Neighbouring steps' images are fetched and
 * decoded ahead of time so stepping shows them at once.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { actionFocus, layoutOverlay, stageSize, type Size } from "@/server/domain/player/overlay";
import { useElementSize } from "../../../_lib/use-element-size";
import type { PlayerStepData, StepAnalysis } from "./player";
import { stepImageUrl, variantWidthFor } from "./image-urls";
import { StepOverlay } from "./step-overlay";

const FALLBACK_SIZE: Size = { width: 1024, height: 768 };
/** Room kept for the vertical scrollbar of a full-page screenshot. */
const SCROLLBAR = 16;

/** The size a screenshot is shown at in `area`: whole, or a full-page one across the width (see stageSize). */
export function fitSize(natural: Size, area: Size): Size {
  return stageSize(natural, area, SCROLLBAR).size;
}

export function shownImage(step: PlayerStepData, showRaw: boolean) {
  return (showRaw ? step.rawScreenshot : step.screenshot) ?? step.screenshot ?? step.rawScreenshot;
}

/**
 * What a page draws over the screenshot, above the overlay: told the step (its stored index), the size its marks'
 * coordinates are in (the marked screenshot's own pixels) and the size it is shown at.
 */
export type StageLayer = (p: { stepIndex: number; natural: Size; display: Size }) => ReactNode;

// Keeps prefetched images referenced until they have loaded (and lets the browser keep them decoded).
const prefetched = new Map<string, { img: HTMLImageElement; decoded: Promise<void> }>();

/** Fetches and decodes an image ahead of showing it; settles once it is decoded (or failed to load). */
export function prefetchImage(url: string, priority: "high" | "low"): Promise<void> {
  const had = prefetched.get(url);
  if (had) return had.decoded;
  const img = new Image();
  img.decoding = "async";
  img.fetchPriority = priority;
  img.src = url;
  const decoded = img.decode().catch(() => {
    prefetched.delete(url);
  });
  prefetched.set(url, { img, decoded });
  if (prefetched.size > 48) prefetched.delete(prefetched.keys().next().value!);
  return decoded;
}

/** The address of a step's screenshot as the stage shows it in `area` (the stage's free space), or null without one. */
export function stageImageUrl(step: PlayerStepData, showRaw: boolean, area: Size): string | null {
  const im = shownImage(step, showRaw);
  if (!im || !area.width) return null;
  const d = fitSize({ width: im.width, height: im.height }, area);
  return d.width ? stepImageUrl(im.hash, d.width) : null;
}

export function StepStage({
  step,
  pending = false,
  showRaw,
  showSom,
  showAction,
  analysis,
  isLast,
  neighbours,
  onZoom,
  onVariantWidth,
  onImageLoaded,
  region = null,
  layer,
}: {
  step: PlayerStepData;
  /** The step's details are still being fetched: show its screenshot, no overlay. */
  pending?: boolean;
  showRaw: boolean;
  showSom: boolean;
  showAction: boolean;
  analysis: StepAnalysis;
  isLast: boolean;
  neighbours: (PlayerStepData | undefined)[];
  onZoom: () => void;
  onVariantWidth?: (width: number) => void;
  onImageLoaded?: () => void;
  /** A region a judge cited ([x1, y1, x2, y2] in the screenshot's pixels), outlined over the screenshot. */
  region?: readonly [number, number, number, number] | null;
  layer?: StageLayer;
}) {
  const areaRef = useRef<HTMLDivElement>(null);
  const area = useElementSize(areaRef);
  const img = shownImage(step, showRaw);
  const natural = img ? { width: img.width, height: img.height } : FALLBACK_SIZE;
  const { size: display, scrolls: fullPage } = stageSize(natural, area, SCROLLBAR);
  const scrollRef = useRef<HTMLDivElement>(null);
  const src = img && display.width > 0 ? stepImageUrl(img.hash, display.width) : null;
  const [loadedSrc, setLoadedSrc] = useState<string | null>(null);

  const layout = useMemo(
    () => layoutOverlay({ natural, display, elements: step.elements, action: step.action }),
    // natural/display are rebuilt each render; their numbers are the real dependencies.
    [natural.width, natural.height, display.width, display.height, step.elements, step.action],
  );

  // A full-page screenshot opens where the action happened (its top when the action has no place on the page).
  const focus = fullPage && !pending ? actionFocus(layout) : null;
  const focusY = focus ? Math.round(focus.y) : null;
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || !fullPage) return;
    el.scrollTop = focusY === null ? 0 : Math.max(0, focusY - el.clientHeight / 2);
  }, [fullPage, focusY, step.index]);

  const neighbourUrls = neighbours.map((s) => s && stageImageUrl(s, showRaw, area)).filter((u): u is string => !!u);
  const neighbourKey = neighbourUrls.join(" ");
  useEffect(() => {
    if (!neighbourKey) return;
    // The next step is the likeliest key press: fetch it at once, the others just after.
    const [next, ...rest] = neighbourKey.split(" ");
    void prefetchImage(next!, "high");
    const t = setTimeout(() => rest.forEach((u) => void prefetchImage(u, "low")), 30);
    return () => clearTimeout(t);
  }, [neighbourKey]);

  const loading = !!src && loadedSrc !== src;

  const variantWidth = display.width > 0 ? variantWidthFor(display.width) : 0;
  useEffect(() => {
    if (variantWidth) onVariantWidth?.(variantWidth);
    // Only a new width matters; the callback changes with the step.
    // (The parent dedupes per width, so calling again is harmless.)
  }, [variantWidth, onVariantWidth]);

  return (
    <div className="flex min-h-0 flex-1 flex-col bg-zinc-100">
      <StatusLine step={step} pending={pending} analysis={analysis} showRaw={showRaw && !!step.rawScreenshot} isLast={isLast} fullPage={fullPage} />
      <div ref={areaRef} className="relative min-h-[240px] flex-1 p-3">
        <div
          ref={scrollRef}
          className={`absolute inset-3 grid justify-items-center ${fullPage ? "items-start overflow-x-hidden overflow-y-auto" : "place-items-center"}`}
          data-testid="step-stage-area"
          data-full-page={fullPage || undefined}
        >
          {img ? (
            <div
              className="relative cursor-zoom-in bg-white shadow-sm ring-1 ring-zinc-300"
              style={{ width: display.width, height: display.height }}
              onClick={onZoom}
              data-testid="step-stage"
            >
              {src && (
                <img
                  key="step-image"
                  src={src}
                  alt={`Screenshot of step ${step.index + 1}`}
                  width={display.width}
                  height={display.height}
                  draggable={false}
                  decoding="sync"
                  fetchPriority="high"
                  data-testid="step-image"
                  data-step={step.index}
                  data-hash={img.hash}
                  onLoad={() => {
                    setLoadedSrc(src);
                    onImageLoaded?.();
                  }}
                  className="block size-full select-none"
                />
              )}
              {display.width > 0 && !pending && (
                <StepOverlay layout={layout} display={display} showSom={showSom} showAction={showAction} labels={!(step.marksBurnedIn && !showRaw)} />
              )}
              {region && display.width > 0 && <CitedRegion region={region} natural={natural} display={display} />}
              {layer && display.width > 0 && !pending && layer({ stepIndex: step.index, natural: step.screenshot ?? natural, display })}
              {loading && (
                <span
                  className="absolute top-2 right-2 size-3 animate-spin rounded-full border-2 border-indigo-400 border-t-transparent"
                  aria-label="Loading image"
                />
              )}
            </div>
          ) : (
            <div className="grid aspect-[4/3] w-full max-w-xl place-items-center rounded-md border border-dashed border-zinc-300 bg-white text-zinc-500">
              No screenshot was recorded for this step.
            </div>
          )}
        </div>
      </div>
    </div>
  );
}

function StatusLine({
  step,
  pending,
  analysis,
  showRaw,
  isLast,
  fullPage,
}: {
  step: PlayerStepData;
  pending: boolean;
  analysis: StepAnalysis;
  showRaw: boolean;
  isLast: boolean;
  fullPage: boolean;
}) {
  const { loops, grounding } = analysis;
  return (
    <div className="flex min-h-8 shrink-0 flex-wrap items-center gap-x-2 gap-y-1 border-b border-zinc-200 bg-zinc-50 px-3 py-1 text-[12px]">
      <span className="min-w-0 flex-1 truncate font-mono text-zinc-600" title={step.url ?? undefined} data-testid="step-url">
        {step.url ?? <span className="font-sans text-zinc-400">{pending ? "Loading…" : "URL not recorded"}</span>}
      </span>
      {grounding && (
        <span data-testid="grounding-flag" className="rounded bg-rose-600 px-1.5 py-px text-2xs font-semibold text-white" title={grounding.message}>
          ⚑ {grounding.kind === "missing-label" ? "Target not in elements" : "Point outside target"}
        </span>
      )}
      {loops.repeatedAction && (
        <span className="rounded bg-amber-100 px-1.5 py-px text-2xs font-medium text-amber-900" title="Same action as the previous step">
          ↻ repeated ×{loops.repeatRun}
        </span>
      )}
      {loops.revisitedUrl && (
        <span className="rounded bg-amber-100 px-1.5 py-px text-2xs font-medium text-amber-900" title={`First visited at step ${(loops.firstSeenAt ?? 0) + 1}`}>
          ↩ revisited URL
        </span>
      )}
      {loops.sameScreen && (
        <span className="rounded bg-amber-100 px-1.5 py-px text-2xs font-medium text-amber-900" title="Screenshot identical to the previous step">
          = same screen
        </span>
      )}
      {step.marksBurnedIn && (
        <span
          data-testid="burned-in-notice"
          className="rounded bg-zinc-200 px-1.5 py-px text-2xs font-medium text-zinc-700"
          title={step.rawScreenshot ? "Press r for the unmarked screenshot" : "The source kept no unmarked screenshot"}
        >
          {showRaw ? "Raw screenshot (marks hidden)" : `Marks burned into image${step.rawScreenshot ? " · r for raw" : ""}`}
        </span>
      )}
      {fullPage && (
        <span
          data-testid="full-page-notice"
          className="rounded bg-zinc-200 px-1.5 py-px text-2xs font-medium text-zinc-700"
          title="The screenshot is taller than the page's window: scroll it, or press z to zoom"
        >
          Full-page screenshot · scroll
        </span>
      )}
      {step.error && <span className="rounded bg-rose-100 px-1.5 py-px text-2xs font-medium text-rose-800">step error</span>}
      {isLast && <span className="rounded bg-zinc-200 px-1.5 py-px text-2xs font-medium text-zinc-700">final step</span>}
    </div>
  );
}

/** The region a judge cited, scaled from the screenshot's pixels to the size it is shown at. */
function CitedRegion({
  region,
  natural,
  display,
}: {
  region: readonly [number, number, number, number];
  natural: { width: number; height: number };
  display: { width: number; height: number };
}) {
  const fx = display.width / natural.width;
  const fy = display.height / natural.height;
  const [x1, y1, x2, y2] = region;
  return (
    <div
      className="pointer-events-none absolute z-30 border-2 border-amber-500 bg-amber-400/15 shadow-[0_0_0_1px_rgba(255,255,255,0.8)]"
      style={{ left: x1 * fx, top: y1 * fy, width: (x2 - x1) * fx, height: (y2 - y1) * fy }}
      data-testid="cited-region"
      data-region={region.join(",")}
      title="Region the judge cited"
    />
  );
}
