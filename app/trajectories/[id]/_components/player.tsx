"use client";
/**
 * The trajectory player: task on the left, the current step large in the middle with its overlay and the
 * filmstrip below, the step's details on the right (and under them, the label panel slot).
 *
 * Everything is driven from the keyboard (see server/domain/player/keyboard.ts). The step lives in `?step=N`
 * (1-based) via history.replaceState, so links reopen the same step without a server round trip per key.
 */
import type { CitationBox } from "@/server/domain/evaluation/citations";
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { memo, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { BASE_STEP_MS, commandForKey, COMMENTS_SHORTCUT, isCommentsKey, nextSpeed, SHORTCUTS, type PlayerCommand } from "@/server/domain/player/keyboard";
import { regionOfCorners, stepLinkPath } from "@/server/domain/trajectories/step-links";
import { CopyStepLink } from "./copy-step-link";
import type { LoopMarks } from "@/server/domain/player/loops";
import type { GroundingFlag } from "@/server/domain/player/overlay";
import { fromJsonText, unpackStepIndex, windowsToFetch, windowStart, STEP_WINDOW, type JsonText, type StepIndexEntry } from "@/server/domain/player/paging";
import type { AppRouter } from "@/server/api/root";
import { ShortcutsHelp, type ShortcutRow } from "../../../_components/shortcuts-help";
import { useTRPC } from "../../../_trpc/client";
import { CommentsPanel, usePlayerComments, type CommentsAccess, type PlayerComments } from "./comments-panel";
import { EvaluationsPanel, useEvaluations } from "./evaluations-panel";
import { useGoldDialog, type GoldAccess } from "./gold-dialog";
import { useTaskFlagDialog } from "./task-flag-dialog";
import { LiveEvidencePanel } from "./live-evidence-panel";
import { Filmstrip } from "./filmstrip";
import { ScannerFindings } from "./scanner-marks";
import { StepDetails } from "./step-details";
import { groundingOf } from "./step-grounding";
import { StepStage, type StageLayer } from "./step-stage";
import { TaskPanel } from "./task-panel";
import { ZoomView } from "./zoom-view";

export type PlayerData = inferRouterOutputs<AppRouter>["trajectories"]["byId"];
type Decoded<T> = T extends JsonText<infer U> ? U : never;
export type PlayerStepData = Decoded<PlayerData["window"]["steps"]>[number];
/** A window of steps as it comes over the wire (its steps as JSON text). */
export type StepWindowData = PlayerData["window"];
/** Fetches the full details of the aligned window of steps starting at `from`. */
export type LoadStepWindow = (from: number) => Promise<StepWindowData>;

/** What a side panel (the label panel) can see of the player: the step on screen, and a way to move. */
export interface PlayerPanelState {
  /** 0-based index of the step on screen. */
  current: number;
  count: number;
  go(index: number): void;
}

export type SidePanel = ReactNode | ((state: PlayerPanelState) => ReactNode);

/** Where the header's back link leads (default: the trajectory list; labelling goes back to its queue). */
export interface BackLink {
  href: string;
  label: string;
}

export interface StepAnalysis {
  loops: LoopMarks;
  grounding: GroundingFlag | null;
}

/**
 * What the player shows: a trajectory by id (researchers, browsing), or a campaign item by number (the labelling
 * page: annotators never address a trajectory they label blind by its id).
 */
export type PlayerSource = { trajectoryId: number } | { campaignId: number; itemNo: number; qa?: boolean };

export function TrajectoryPlayer({
  source,
  initialStep,
  sidePanel,
  sidePanelFirst,
  fill,
  back,
  evaluationsOpen,
  initialRegion,
  download,
  gold,
  stageLayer,
  extraShortcuts,
  commentsKey = true,
  commentsOpen,
}: {
  source: PlayerSource;
  initialStep: number;
  sidePanel?: SidePanel;
  sidePanelFirst?: boolean;
  fill?: "viewport" | "parent";
  back?: BackLink;
  /** Open with the evaluations panel showing (`?panel=evaluations`, the adjudication page). */
  evaluationsOpen?: boolean;
  /** A region a judge cited on the initial step (`?region=x1,y1,x2,y2`), drawn on its screenshot. */
  initialRegion?: CitationBox | null;
  /** Where the header's ATIF download points (researchers' trajectory view; none for campaign items). */
  download?: string;
  /** The viewer may mark the trajectory gold (researchers); "open" starts with the gold dialog open (`?gold=1`). */
  gold?: GoldAccess;
  /** Drawn over the step's screenshot, above the overlay (the labelling page's region marks). */
  stageLayer?: StageLayer;
  /** The page's own keys, listed after the player's in the `?` help. */
  extraShortcuts?: readonly ShortcutRow[];
  /** Whether `c` opens the comments (off where a side panel gives `c` its own meaning: the reveal panel). */
  commentsKey?: boolean;
  /** Open with the comments showing (`?panel=comments`, the inbox's links). */
  commentsOpen?: boolean;
}) {
  const trpc = useTRPC();
  // Primitives, so the callbacks below stay stable across renders that pass an equal source.
  const trajectoryId = "trajectoryId" in source ? source.trajectoryId : 0;
  const campaignId = "itemNo" in source ? source.campaignId : 0;
  const itemNo = "itemNo" in source ? source.itemNo : 0;
  // The QA page plays an item by number too, through the QA reviewer's procedures.
  const qa = "itemNo" in source && !!source.qa;
  const { data } = useSuspenseQuery(
    qa
      ? trpc.qa.trajectory.queryOptions({ campaignId, itemNo })
      : itemNo
        ? trpc.labelling.item.queryOptions({ campaignId, itemNo })
        : trpc.trajectories.byId.queryOptions({ id: trajectoryId }),
  ) as { data: PlayerData };
  const queryClient = useQueryClient();
  // Windows are cached like any query (the page may have rendered the initial step's window on the server).
  const loadWindow = useCallback<LoadStepWindow>(
    (from) =>
      queryClient.fetchQuery({
        ...(qa
          ? trpc.qa.steps.queryOptions({ campaignId, itemNo, from })
          : itemNo
            ? trpc.labelling.itemSteps.queryOptions({ campaignId, itemNo, from })
            : trpc.trajectories.steps.queryOptions({ id: trajectoryId, from })),
        staleTime: Infinity,
      }),
    [queryClient, trpc, campaignId, itemNo, trajectoryId, qa],
  );
  // The page may have fetched the initial step's window on the server: start with it rather than a placeholder.
  const [initialWindow] = useState(() =>
    queryClient.getQueryData(
      (qa
        ? trpc.qa.steps.queryOptions({ campaignId, itemNo, from: windowStart(Math.max(0, initialStep - 1)) })
        : itemNo
          ? trpc.labelling.itemSteps.queryOptions({ campaignId, itemNo, from: windowStart(Math.max(0, initialStep - 1)) })
          : trpc.trajectories.steps.queryOptions({ id: trajectoryId, from: windowStart(Math.max(0, initialStep - 1)) })
      ).queryKey,
    ),
  );
  const { mutate: warmTrajectory } = useMutation(trpc.trajectories.warmImages.mutationOptions());
  const { mutate: warmItem } = useMutation(trpc.labelling.warmImages.mutationOptions());
  const { mutate: warmQaItem } = useMutation(trpc.qa.warmImages.mutationOptions());
  const warm = useCallback(
    (q: { width: number; fromStep: number; raw: boolean }) =>
      qa ? warmQaItem({ campaignId, itemNo, ...q }) : itemNo ? warmItem({ campaignId, itemNo, ...q }) : warmTrajectory({ id: trajectoryId, ...q }),
    [campaignId, itemNo, trajectoryId, warmItem, warmTrajectory, warmQaItem, qa],
  );
  const comments = useMemo<CommentsAccess | undefined>(
    () => (qa ? undefined : { source: itemNo ? { campaignId, itemNo } : { trajectoryId }, key: commentsKey, open: commentsOpen }),
    [qa, itemNo, campaignId, trajectoryId, commentsKey, commentsOpen],
  );
  const warmed = useRef(new Set<string>());
  // Once per display width (and raw/marked choice), ask the server to encode every step at that width, from
  // the current step on, so stepping never waits for an encode.
  const onDisplayWidth = useCallback(
    (width: number, fromStep: number, raw: boolean) => {
      const key = `${width}:${raw}`;
      if (warmed.current.has(key)) return;
      warmed.current.add(key);
      warm({ width, fromStep, raw });
    },
    [warm],
  );
  return (
    <PlayerView
      data={data}
      initialStep={initialStep}
      sidePanel={sidePanel}
      sidePanelFirst={sidePanelFirst}
      fill={fill}
      back={back}
      onDisplayWidth={onDisplayWidth}
      evaluationsOpen={evaluationsOpen}
      initialRegion={initialRegion}
      loadWindow={loadWindow}
      initialWindow={initialWindow}
      download={download}
      gold={gold}
      stepLink={stepLinkFor(data, source)}
      stageLayer={stageLayer}
      extraShortcuts={extraShortcuts}
      // The QA page has no comment procedures of its own (and gives `c` to confidence): no comments there.
      comments={comments}
    />
  );
}

/**
 * The stable link to a step the header's "Copy link" (and `l`) copies: a trajectory by its content key (/t/…), with
 * the region drawn on the step; a labelling item by its campaign and number (what an annotator labelling blind may
 * open; the trajectory's key would name what the blind hides). The QA page has no step address, so no link there.
 */
function stepLinkFor(data: PlayerData, source: PlayerSource): StepLinkBuilder | undefined {
  if ("trajectoryId" in source) {
    const t = data.trajectory;
    if (!("linkKey" in t) || source.trajectoryId <= 0) return undefined;
    return (step, region) => stepLinkPath({ key: String(t.linkKey), id: t.id }, step, region && regionOfCorners(region));
  }
  if (source.qa) return undefined;
  return (step) => `/annotate/${source.campaignId}/${source.itemNo}?step=${Math.max(1, Math.floor(step))}`;
}

/** Builds the link to a (1-based) step, keeping the region drawn on it where the address can carry one. */
type StepLinkBuilder = (step: number, region: CitationBox | null) => string;

function clampStep(i: number, n: number): number {
  return Math.max(0, Math.min(n - 1, i));
}

/**
 * Keeps ?step=N, ?panel=evaluations and a cited ?region= in the address bar without a navigation, so a shared
 * link opens where the viewer is.
 */
function useAddressBar(current: number, n: number, showEvaluations: boolean, region: CitationBox | null) {
  const regionText = region ? region.join(",") : null;
  useEffect(() => {
    if (!n) return;
    const url = new URL(window.location.href);
    const want = String(current + 1);
    if (url.searchParams.get("step") === want && url.searchParams.get("region") === regionText) return;
    url.searchParams.set("step", want);
    if (regionText) url.searchParams.set("region", regionText);
    else url.searchParams.delete("region");
    window.history.replaceState(window.history.state, "", url);
  }, [current, n, regionText]);
  useEffect(() => {
    const url = new URL(window.location.href);
    if ((url.searchParams.get("panel") === "evaluations") === showEvaluations) return;
    if (showEvaluations) url.searchParams.set("panel", "evaluations");
    else url.searchParams.delete("panel");
    window.history.replaceState(window.history.state, "", url);
  }, [showEvaluations]);
}

/**
 * The player's keys on the window (server/domain/player/keyboard.ts); `c` for the comments where `commentsKey` says
 * it is free. A key another listener already took (a label form's) is left alone.
 */
function usePlayerKeys(run: (cmd: PlayerCommand) => void, help: boolean, commentsKey: boolean) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const target = e.target as HTMLElement | null;
      const cmd = commentsKey && isCommentsKey(e, target) ? "comments" : commandForKey(e, target);
      if (!cmd) return;
      // With the help open only closing it does anything, so a stray key cannot change the step underneath.
      if (help && cmd !== "toggleHelp" && cmd !== "close") return;
      e.preventDefault();
      run(cmd);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [run, help, commentsKey]);
}

/** The side panels that take the step details' place, scrolled into view when opened. */
const SIDE_PANELS = '[data-testid="evaluations-panel"], [data-testid="comments-panel"]';

const DETAILS_COLUMN = "flex shrink-0 flex-col border-zinc-200 bg-white lg:w-[300px] lg:overflow-y-auto lg:border-l 2xl:w-[380px]";

/**
 * Scrolls a panel (`selector`, inside the returned ref's element) into view when the viewer opens it, not when the
 * page opens with it: on the labelling page the evaluations come below the label form, out of sight otherwise.
 */
function useScrollIntoViewOnOpen(open: boolean, selector: string) {
  const ref = useRef<HTMLElement>(null);
  const wasOpen = useRef(open);
  useEffect(() => {
    if (open && !wasOpen.current) ref.current?.querySelector(selector)?.scrollIntoView({ block: "start" });
    wasOpen.current = open;
  }, [open, selector]);
  return ref;
}

/** A region a judge cited, drawn while its step is on screen; `cite` moves to a cited step and sets or clears it. */
function useCitedRegion(initial: CitationBox | null, initialPosition: number, n: number, setCurrent: (i: number) => void) {
  const [cited, setCited] = useState(() => (initial ? { position: initialPosition, box: initial } : null));
  const cite = useCallback(
    (i: number, box: CitationBox | null) => {
      setCurrent(clampStep(i, n));
      setCited(box ? { position: clampStep(i, n), box } : null);
    },
    [n, setCurrent],
  );
  return { cited, cite };
}

export interface PlayerViewProps {
  data: PlayerData;
  initialStep: number;
  sidePanel?: SidePanel;
  /** Show the side panel above the step details (labelling puts its form first). */
  sidePanelFirst?: boolean;
  /**
   * "viewport": on desktop the player is exactly the window below the top nav, so screenshot, filmstrip and
   * side panels are all on screen and only the side columns scroll. "parent": it fills a box the page sized
   * (the adjudication page puts the annotators' labels above it).
   */
  fill?: "viewport" | "parent";
  back?: BackLink;
  onDisplayWidth?: (variantWidth: number, fromStep: number, raw: boolean) => void;
  evaluationsOpen?: boolean;
  initialRegion?: CitationBox | null;
  /** Fetches further windows of steps; without it only the payload's own window has details. */
  loadWindow?: LoadStepWindow;
  /** Another window already at hand (the initial step's, fetched with the page). */
  initialWindow?: StepWindowData;
  /** Where the header's ATIF download points, when the viewer may download the trajectory. */
  download?: string;
  /** Whether gold can be marked from the header, for viewers who may (researchers). */
  gold?: GoldAccess;
  /** The stable link to a (1-based) step, which the header's "Copy link" and `l` copy; none: no link offered. */
  stepLink?: StepLinkBuilder;
  stageLayer?: StageLayer;
  extraShortcuts?: readonly ShortcutRow[];
  /** The comment threads to show beside the step, and whether `c` opens them; none: no comments (live, QA). */
  comments?: CommentsAccess;
}

export function PlayerView({
  data,
  initialStep,
  sidePanel,
  sidePanelFirst = false,
  fill = "viewport",
  back,
  onDisplayWidth,
  evaluationsOpen = false,
  initialRegion = null,
  loadWindow,
  initialWindow,
  download,
  gold,
  stepLink,
  stageLayer,
  extraShortcuts = [],
  comments: commentsAccess,
}: PlayerViewProps) {
  const index = useMemo(() => unpackStepIndex(fromJsonText(data.index)), [data.index]);
  const n = index.length;
  const [current, setCurrent] = useState(() => clampStep(initialStep - 1, Math.max(1, n)));
  const [showSom, setShowSom] = useState(true);
  const [showAction, setShowAction] = useState(true);
  const [preferRaw, setPreferRaw] = useState(false);
  const [zoom, setZoom] = useState(false);
  const [help, setHelp] = useState(false);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const [showEvaluations, setShowEvaluations] = useState(evaluationsOpen);
  const evaluations = useEvaluations(data.trajectory.id, showEvaluations, n);
  const comments = usePlayerComments(commentsAccess, showEvaluations, setShowEvaluations);
  const detailsColumn = useScrollIntoViewOnOpen(showEvaluations || comments.show, SIDE_PANELS);
  // Thumbnails wait for the first large image, so they never compete with it (or its neighbours) for the
  // server's encoder on a cold cache.
  const [firstImageShown, setFirstImageShown] = useState(false);

  const { stepAt, windowError } = useStepWindows(data.window, index, current, loadWindow, initialWindow);
  const loaded = stepAt(current);
  // Until its window arrives, the step shows what the index knows (its screenshot), its details say loading.
  const step = loaded ?? (index[current] ? placeholderStep(index[current]) : undefined);
  const pending = !loaded && !!step;

  // Loop marks come with the index (computed on the server like the loop heuristic's); grounding needs the step's
  // elements, so it is known for the steps whose details have been fetched.
  const analysisAt = useCallback(
    (i: number): StepAnalysis | undefined => {
      const entry = index[i];
      if (!entry) return undefined;
      const full = stepAt(i);
      return { loops: entry.loops, grounding: full ? groundingOf(full) : null };
    },
    [index, stepAt],
  );
  const currentAnalysis = useMemo(() => analysisAt(current), [analysisAt, current]);

  const { cited, cite } = useCitedRegion(initialRegion, clampStep(initialStep - 1, Math.max(1, n)), n, setCurrent);
  const region = cited && cited.position === current ? cited.box : null;
  useAddressBar(current, n, showEvaluations, region);
  const closeEvaluations = useCallback(() => setShowEvaluations(false), []);
  const toggleEvaluations = useCallback(() => setShowEvaluations((v) => !v), []);
  const openComments = comments.open;

  const go = useCallback((i: number) => setCurrent(clampStep(i, n)), [n]);
  const selectStep = useCallback(
    (i: number) => {
      setPlaying(false);
      go(i);
    },
    [go],
  );

  // Playback: advance on a timer, stop at the end.
  useEffect(() => {
    if (!playing) return;
    if (current >= n - 1) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => setCurrent((c) => clampStep(c + 1, n)), BASE_STEP_MS / speed);
    return () => clearTimeout(t);
  }, [playing, current, n, speed]);

  const run = useCallback(
    (cmd: PlayerCommand) => {
      switch (cmd) {
        case "prev":
          setPlaying(false);
          setCurrent((c) => clampStep(c - 1, n));
          break;
        case "next":
          setPlaying(false);
          setCurrent((c) => clampStep(c + 1, n));
          break;
        case "first":
          setPlaying(false);
          setCurrent(0);
          break;
        case "last":
          setPlaying(false);
          setCurrent(Math.max(0, n - 1));
          break;
        case "togglePlay":
          setPlaying((p) => {
            if (!p) setCurrent((c) => (c >= n - 1 ? 0 : c));
            return !p;
          });
          break;
        case "faster":
          setSpeed((s) => nextSpeed(s, 1));
          break;
        case "slower":
          setSpeed((s) => nextSpeed(s, -1));
          break;
        case "toggleOverlay":
          setShowSom((v) => !v);
          break;
        case "toggleAction":
          setShowAction((v) => !v);
          break;
        case "toggleRaw":
          setPreferRaw((v) => !v);
          break;
        case "toggleZoom":
          setZoom((v) => !v);
          break;
        case "toggleHelp":
          setHelp((v) => !v);
          break;
        case "toggleEvaluations":
          setShowEvaluations((v) => !v);
          break;
        case "comments":
          openComments();
          break;
        case "close":
          setZoom(false);
          setHelp(false);
          break;
      }
    },
    [n, openComments],
  );

  usePlayerKeys(run, help, comments.key);

  const showRaw = preferRaw && !!step?.rawScreenshot;
  const panel = typeof sidePanel === "function" ? sidePanel({ current, count: n, go }) : sidePanel;

  return (
    // A fixed height, not flex-1 alone: as a flex item with a zero basis the player grew to its tallest column
    // (the label panel), pushing the screenshot down and the filmstrip below the fold.
    <div className={`flex min-h-0 flex-col ${fill === "viewport" ? "flex-1 lg:h-[calc(100dvh-2.75rem)] lg:flex-none" : "flex-1"}`} data-testid="player">
      <PlayerHeader
        data={data}
        back={back}
        showEvaluations={showEvaluations}
        onToggleEvaluations={toggleEvaluations}
        download={download}
        stepLink={stepLink?.(current + 1, region)}
        gold={gold}
        current={current}
        comments={comments.enabled ? comments : undefined}
      />
      <div className="flex min-h-0 flex-1 flex-col lg:flex-row">
        <aside aria-label="Task" className="shrink-0 border-zinc-200 bg-white lg:w-[280px] lg:overflow-y-auto lg:border-r 2xl:w-[360px]">
          <TaskPanel data={data} />
        </aside>

        <section aria-label="Step viewer" className="flex min-h-0 min-w-0 flex-1 flex-col">
          {n === 0 || !step ? (
            <div className="grid flex-1 place-items-center p-8 text-zinc-500">This trajectory has no steps.</div>
          ) : (
            <>
              <Toolbar
                current={current}
                count={n}
                playing={playing}
                speed={speed}
                showSom={showSom}
                showAction={showAction}
                showRaw={showRaw}
                canRaw={!!step.rawScreenshot}
                hasBoxes={!!step.elements?.some((e) => e.bbox)}
                run={run}
              />
              <StepStage
                step={step}
                pending={pending}
                showRaw={showRaw}
                showSom={showSom}
                showAction={showAction}
                analysis={currentAnalysis!}
                isLast={current === n - 1}
                neighbours={neighbourSteps(index, stepAt, current)}
                onZoom={() => setZoom(true)}
                onVariantWidth={(w) => onDisplayWidth?.(w, current, showRaw)}
                onImageLoaded={() => setFirstImageShown(true)}
                region={region}
                layer={stageLayer}
              />
              <Filmstrip
                index={index}
                stepAt={stepAt}
                current={current}
                showThumbnails={firstImageShown}
                evaluationMarks={evaluations.marks}
                openComments={comments.enabled ? comments.state.openByStep : undefined}
                trajectoryId={data.trajectory.id}
                onSelect={selectStep}
              />
            </>
          )}
        </section>

        <aside ref={detailsColumn} aria-label="Step details" className={DETAILS_COLUMN}>
          {panel && sidePanelFirst && <div className="border-b border-zinc-200">{panel}</div>}
          {comments.show ? (
            <CommentsPanel comments={comments} current={current} count={n} go={selectStep} />
          ) : showEvaluations ? (
            <EvaluationsPanel state={evaluations} go={go} cite={cite} onClose={closeEvaluations} />
          ) : (
            step &&
            (pending ? (
              <PendingDetails position={current + 1} count={n} error={windowError} />
            ) : (
              <>
                <StepDetails step={step} position={current + 1} count={n} analysis={currentAnalysis!} showingRaw={showRaw} />
                <ScannerFindings trajectoryId={data.trajectory.id} stepIndex={step.index} />
                {/* Live runs' network log and prompts; a blind item (id 0) never asks. */}
                {data.trajectory.sourceFormat === "verdict-runner" && data.trajectory.id !== 0 && (
                  <LiveEvidencePanel trajectoryId={data.trajectory.id} step={step.index} recording={data.trajectory.outcome === "running"} />
                )}
              </>
            ))
          )}
          {/* Label panel slot: the annotation issue renders its form here. */}
          {panel && !sidePanelFirst && <div className="border-t border-zinc-200">{panel}</div>}
        </aside>
      </div>

      {zoom && step && (
        <ZoomView step={step} showRaw={showRaw} showSom={showSom} showAction={showAction} position={current + 1} count={n} onClose={() => setZoom(false)} />
      )}
      {help && (
        <PlayerHelp withLink={!!stepLink} extra={comments.key ? [COMMENTS_SHORTCUT, ...extraShortcuts] : extraShortcuts} onClose={() => setHelp(false)} />
      )}
    </div>
  );
}

/** The `?` help: the player's keys (without "copy link" where there is no link), then the page's own. */
function PlayerHelp({ withLink, extra, onClose }: { withLink: boolean; extra: readonly ShortcutRow[]; onClose: () => void }) {
  return (
    <ShortcutsHelp
      shortcuts={[...(withLink ? SHORTCUTS : SHORTCUTS.filter((k) => k.command !== "copyLink")), ...extra]}
      footnote="Shortcuts are ignored while you type in a text field. The step is kept in the URL (?step=N), so links reopen it."
      onClose={onClose}
    />
  );
}

/** A step whose details have not arrived yet: its screenshot from the index, nothing else. */
function placeholderStep(e: StepIndexEntry): PlayerStepData {
  const meta = e.shot ? { ...e.shot, dhash: null } : null;
  return {
    index: e.position,
    url: null,
    thought: null,
    actionRaw: null,
    action: { type: "noop" },
    elements: null,
    error: null,
    durationMs: null,
    marksBurnedIn: false,
    screenshot: meta,
    rawScreenshot: null,
  };
}

/** The steps whose screenshots are fetched and decoded ahead: next, previous, the one after next. */
function neighbourSteps(index: StepIndexEntry[], stepAt: (i: number) => PlayerStepData | undefined, current: number) {
  return [current + 1, current - 1, current + 2].map((i) => stepAt(i) ?? (index[i] ? placeholderStep(index[i]) : undefined));
}

/**
 * The windows of full step details fetched so far, and fetching the ones the playhead needs next (the current
 * step's window at once, the neighbouring one when the playhead comes within PREFETCH_MARGIN of it).
 */
function useStepWindows(first: StepWindowData, index: StepIndexEntry[], current: number, loadWindow?: LoadStepWindow, also?: StepWindowData) {
  const [windows, setWindows] = useState(() => {
    const m = new Map<number, PlayerStepData[]>([[first.from, fromJsonText(first.steps)]]);
    if (also) m.set(also.from, fromJsonText(also.steps));
    return m;
  });
  const [windowError, setWindowError] = useState<string | null>(null);
  // A new payload (a live trajectory's next step) replaces the first window.
  const [firstSeen, setFirstSeen] = useState(first);
  if (firstSeen !== first) {
    setFirstSeen(first);
    setWindows((w) => new Map(w).set(first.from, fromJsonText(first.steps)));
  }
  const n = index.length;
  useEffect(() => {
    if (!loadWindow) return;
    const wanted = windowsToFetch(current, n, new Set(windows.keys()));
    let live = true;
    for (const from of wanted) {
      loadWindow(from).then(
        (w) => {
          if (!live) return;
          setWindowError(null);
          setWindows((m) => (m.has(w.from) ? m : new Map(m).set(w.from, fromJsonText(w.steps))));
        },
        (e: unknown) => {
          if (live) setWindowError(e instanceof Error ? e.message : String(e));
        },
      );
    }
    return () => {
      live = false;
    };
  }, [current, n, windows, loadWindow]);
  const stepAt = useCallback(
    (i: number): PlayerStepData | undefined => {
      const from = windowStart(i, STEP_WINDOW);
      return windows.get(from)?.[i - from];
    },
    [windows],
  );
  return { stepAt, windowError };
}

function PendingDetails({ position, count, error }: { position: number; count: number; error: string | null }) {
  return (
    <div className="flex flex-col gap-2 p-4" data-testid="step-details-pending">
      <h2 className="text-[13px] font-semibold text-zinc-900">
        Step {position} <span className="font-normal text-zinc-400">of {count}</span>
      </h2>
      {error ? (
        <p className="text-[12px] text-rose-700" role="alert">
          Could not load this step&apos;s details: {error}
        </p>
      ) : (
        <p className="text-[12px] text-zinc-500">Loading step details…</p>
      )}
    </div>
  );
}

const PlayerHeader = memo(function PlayerHeader({
  data,
  back,
  showEvaluations,
  onToggleEvaluations,
  download,
  stepLink,
  gold: goldAccess,
  current,
  comments,
}: {
  data: PlayerData;
  back?: BackLink;
  showEvaluations: boolean;
  onToggleEvaluations: () => void;
  download?: string;
  /** The stable link to the step on screen (a trajectory's /t/… link, a labelling item's address). */
  stepLink?: string;
  gold?: GoldAccess;
  /** The 0-based step on screen (where a gold failure point starts). */
  current: number;
  /** The comments toggle: whether the panel shows, the count of open threads. */
  comments?: PlayerComments;
}) {
  const { trajectory: t, task, run, taskSet } = data;
  const gold = useGoldDialog(goldAccess, t.id, current);
  // Whoever may mark gold (researchers on a trajectory page) may flag its task too.
  const flagTask = useTaskFlagDialog(goldAccess !== undefined && !data.agentHidden && t.id !== 0, task.id);
  return (
    <div className="flex h-10 shrink-0 items-center gap-3 border-b border-zinc-200 bg-white px-4 text-[12px]">
      {/* On a narrow screen the way back gives up its width first (it shrinks a hundred times faster), then the task's
          id is cut at its end; nothing is drawn over anything, and the header never pushes the page sideways. */}
      <Link
        href={back?.href ?? "/trajectories"}
        className="max-w-64 min-w-12 shrink-[100] truncate text-zinc-500 hover:text-zinc-800"
        data-testid="player-back"
      >
        ← {back?.label ?? "Trajectories"}
      </Link>
      <span className="text-zinc-300">/</span>
      <h1 className="flex min-w-0 items-baseline gap-2">
        <span className="min-w-0 truncate font-mono text-[13px] font-semibold text-zinc-900" title={task.externalId}>
          {task.externalId}
        </span>
        {/* A blind item has no trajectory id to show (annotators know it by its item number). */}
        {!data.agentHidden && <span className="shrink-0 text-zinc-400">#{t.id}</span>}
        {t.attempt > 0 && <span className="shrink-0 text-zinc-500">attempt {t.attempt + 1}</span>}
      </h1>
      <div className="flex min-w-0 flex-1 items-center gap-2 truncate text-zinc-500">
        {data.agentHidden ? (
          <span className="truncate">{taskSet.name}</span>
        ) : (
          <Link className="truncate hover:text-zinc-800 hover:underline" href={`/task-sets/${taskSet.id}`}>
            {taskSet.name}
          </Link>
        )}
        <span>·</span>
        {data.agentHidden ? (
          <span
            className="truncate text-zinc-400 italic"
            title="Which agent made this trajectory is hidden until you have labelled it"
            data-testid="agent-hidden"
          >
            {run.name}
          </span>
        ) : (
          <Link className="truncate hover:text-zinc-800 hover:underline" href={`/runs/${run.id}`} title={run.name}>
            {run.name}
          </Link>
        )}
        {run.model && (
          <>
            <span>·</span>
            <span className="truncate font-mono">{run.model}</span>
          </>
        )}
      </div>
      <div className="ml-auto flex shrink-0 items-center gap-2">
        {download && !data.agentHidden && (
          <a
            href={download}
            download
            className="rounded px-1.5 py-0.5 text-zinc-500 ring-1 ring-zinc-200 ring-inset hover:bg-zinc-50 hover:text-zinc-800"
            title="Download this trajectory as ATIF (Agent Trajectory Interchange Format): a zip with the JSON and its screenshots"
            data-testid="download-atif"
          >
            ATIF ↓
          </a>
        )}
        {stepLink && <CopyStepLink path={stepLink} />}
        {flagTask.dialog}
        {flagTask.button}
        {gold.dialog}
        {gold.open && (
          <button
            type="button"
            className="rounded px-1.5 py-0.5 text-zinc-500 ring-1 ring-zinc-200 ring-inset hover:bg-zinc-50 hover:text-zinc-800"
            onClick={gold.open}
            title="Mark this trajectory as gold (its known answer) in a campaign"
            data-testid="mark-gold"
          >
            Gold…
          </button>
        )}
        {comments && (
          <Toggle on={comments.show} onClick={comments.toggle} title="Comments: threads on this trajectory and its steps (c)" testId="toggle-comments">
            Comments
            {comments.state.open > 0 && (
              <span className="rounded-full bg-sky-600 px-1.5 text-2xs leading-4 font-semibold text-white tabular-nums" data-testid="comments-badge">
                {comments.state.open}
              </span>
            )}
          </Toggle>
        )}
        <Toggle on={showEvaluations} onClick={onToggleEvaluations} title="Evaluations: verdicts and labels beside the step (e)" testId="toggle-evaluations">
          Evaluations
        </Toggle>
        <OutcomePill outcome={t.outcome} detail={t.outcomeDetail} />
        <span className="text-zinc-500 tabular-nums">
          {t.stepCount} step{t.stepCount === 1 ? "" : "s"}
        </span>
      </div>
    </div>
  );
});

// "Answered" says how the trajectory ended, not that the answer is right: neutral, like the final answer.
const OUTCOME_PILL: Record<string, string> = {
  answered: "bg-slate-100 text-slate-700 ring-slate-500/20",
  step_limit: "bg-amber-50 text-amber-800 ring-amber-600/20",
  time_limit: "bg-amber-50 text-amber-800 ring-amber-600/20",
  error: "bg-rose-50 text-rose-700 ring-rose-600/20",
};

function OutcomePill({ outcome, detail }: { outcome: string; detail: string | null }) {
  return (
    <span
      title={detail ?? undefined}
      className={`rounded px-1.5 py-px text-2xs font-medium ring-1 ring-inset ${OUTCOME_PILL[outcome] ?? "bg-zinc-100 text-zinc-600 ring-zinc-500/20"}`}
    >
      {outcome.replace("_", " ")}
    </span>
  );
}

function Toolbar(props: {
  current: number;
  count: number;
  playing: boolean;
  speed: number;
  showSom: boolean;
  showAction: boolean;
  showRaw: boolean;
  canRaw: boolean;
  hasBoxes: boolean;
  run: (c: PlayerCommand) => void;
}) {
  const { current, count, playing, speed, run } = props;
  // Buttons act on click without taking focus, so Space keeps meaning play/pause after a mouse click.
  const noFocus = (e: React.MouseEvent) => e.preventDefault();
  return (
    <div role="toolbar" aria-label="Player controls" className="flex h-10 shrink-0 items-center gap-1.5 border-b border-zinc-200 bg-white px-3">
      <button
        type="button"
        className="btn btn-icon"
        onMouseDown={noFocus}
        onClick={() => run("first")}
        disabled={current === 0}
        title="First step (Home)"
        aria-label="First step"
      >
        <Icon name="first" />
      </button>
      <button
        type="button"
        className="btn btn-icon"
        onMouseDown={noFocus}
        onClick={() => run("prev")}
        disabled={current === 0}
        title="Previous step (← or k)"
        aria-label="Previous step"
      >
        <Icon name="prev" />
      </button>
      <span className="min-w-[92px] text-center text-[12px] text-zinc-700 tabular-nums" data-testid="step-counter" aria-live="polite">
        Step <strong className="text-zinc-900">{current + 1}</strong> of {count}
      </span>
      <button
        type="button"
        className="btn btn-icon"
        onMouseDown={noFocus}
        onClick={() => run("next")}
        disabled={current >= count - 1}
        title="Next step (→ or j)"
        aria-label="Next step"
      >
        <Icon name="next" />
      </button>
      <button
        type="button"
        className="btn btn-icon"
        onMouseDown={noFocus}
        onClick={() => run("last")}
        disabled={current >= count - 1}
        title="Last step (End)"
        aria-label="Last step"
      >
        <Icon name="last" />
      </button>
      <span className="mx-1 h-5 w-px bg-zinc-200" />
      <button
        type="button"
        className={`btn btn-icon ${playing ? "btn-on" : ""}`}
        onMouseDown={noFocus}
        onClick={() => run("togglePlay")}
        title={playing ? "Pause (Space)" : "Play (Space)"}
        aria-label={playing ? "Pause" : "Play"}
        aria-pressed={playing}
        data-testid="play"
      >
        <Icon name={playing ? "pause" : "play"} />
      </button>
      <button
        type="button"
        className="btn tabular-nums"
        onMouseDown={noFocus}
        onClick={() => run(speed >= 4 ? "slower" : "faster")}
        title="Playback speed (- / +)"
        data-testid="speed"
      >
        {speed}×
      </button>
      <span className="mx-1 h-5 w-px bg-zinc-200" />
      <Toggle
        on={props.showSom}
        onClick={() => run("toggleOverlay")}
        title={props.hasBoxes ? "Set-of-Marks boxes (o)" : "This step has no stored boxes (o)"}
        testId="toggle-som"
      >
        SoM
      </Toggle>
      <Toggle on={props.showAction} onClick={() => run("toggleAction")} title="Action overlay (a)" testId="toggle-action">
        Action
      </Toggle>
      <Toggle
        on={props.showRaw}
        onClick={() => run("toggleRaw")}
        disabled={!props.canRaw}
        title={props.canRaw ? "Raw (unmarked) screenshot (r)" : "No raw screenshot for this step"}
        testId="toggle-raw"
      >
        Raw
      </Toggle>
      <button type="button" className="btn" onMouseDown={noFocus} onClick={() => run("toggleZoom")} title="Zoom to full resolution (z)">
        Zoom
      </button>
      <button
        type="button"
        className="btn btn-icon ml-auto"
        onMouseDown={noFocus}
        onClick={() => run("toggleHelp")}
        title="Keyboard shortcuts (?)"
        aria-label="Keyboard shortcuts"
      >
        ?
      </button>
    </div>
  );
}

const ICON_PATHS: Record<string, string> = {
  first: "M4 3v10M13 3 6 8l7 5z",
  prev: "M10.5 3 5.5 8l5 5",
  next: "M5.5 3l5 5-5 5",
  last: "M12 3v10M3 3l7 5-7 5z",
  play: "M5 3l8 5-8 5z",
  pause: "M4 3h3v10H4zM9 3h3v10H9z",
};

/** Previous and next are open chevrons, so they cannot be mistaken for the filled play triangle. */
const OUTLINE_ICONS = new Set(["prev", "next"]);

function Icon({ name }: { name: keyof typeof ICON_PATHS }) {
  const outline = OUTLINE_ICONS.has(name);
  return (
    <svg
      viewBox="0 0 16 16"
      className="size-3.5"
      aria-hidden
      fill={outline ? "none" : "currentColor"}
      stroke="currentColor"
      strokeWidth={outline ? 2 : 1.2}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={ICON_PATHS[name]} />
    </svg>
  );
}

function Toggle({
  on,
  onClick,
  title,
  children,
  disabled,
  testId,
}: {
  on: boolean;
  onClick: () => void;
  title: string;
  children: ReactNode;
  disabled?: boolean;
  testId: string;
}) {
  return (
    <button
      type="button"
      className={`btn ${on ? "btn-on" : ""}`}
      aria-pressed={on}
      onMouseDown={(e) => e.preventDefault()}
      onClick={onClick}
      title={title}
      disabled={disabled}
      data-testid={testId}
    >
      <span aria-hidden className={`size-1.5 rounded-full ${on ? "bg-indigo-500" : "bg-zinc-300"}`} />
      {children}
    </button>
  );
}
