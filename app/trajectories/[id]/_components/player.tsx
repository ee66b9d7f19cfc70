"use client";
/**
 * The trajectory player: task on the left, the current step large in the middle with its overlay and the
 * filmstrip below, the step's details on the right (and under them, the label panel slot). Its parts live beside it:
 * the header (player-header.tsx), the toolbar (player-toolbar.tsx, from the controls in step-controls.tsx), the
 * stage (step-stage.tsx), the filmstrip, the step details and the side panels; the side-by-side page composes the
 * same parts.
 *
 * Everything is driven from the keyboard (see server/domain/player/keyboard.ts). The step lives in `?step=N`
 * (1-based) via history.replaceState, so links reopen the same step without a server round trip per key.
 */
import type { CitationBox } from "@/server/domain/evaluation/citations";
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import {
  BASE_STEP_MS,
  commandForKey,
  COMMENTS_SHORTCUT,
  isCommentsKey,
  nextSpeed,
  SHORTCUTS,
  type KeyLike,
  type PlayerCommand,
  type TargetLike,
} from "@/server/domain/player/keyboard";
import { regionOfCorners, stepLinkPath } from "@/server/domain/trajectories/step-links";
import type { LoopMarks } from "@/server/domain/player/loops";
import type { GroundingFlag } from "@/server/domain/player/overlay";
import { fromJsonText, unpackStepIndex, windowStart, type JsonText, type StepIndexEntry } from "@/server/domain/player/paging";
import type { AppRouter } from "@/server/api/root";
import { ShortcutsHelp, type ShortcutRow } from "../../../_components/shortcuts-help";
import { useTRPC } from "../../../_trpc/client";
import { CommentsPanel, usePlayerComments, type CommentsAccess, type PlayerComments } from "./comments-panel";
import { EvaluationsPanel, useEvaluations, type EvaluationsState } from "./evaluations-panel";
import type { GoldAccess } from "./gold-dialog";
import { LiveEvidencePanel } from "./live-evidence-panel";
import { Filmstrip } from "./filmstrip";
import { PlayerHeader } from "./player-header";
import { PlayerToolbar } from "./player-toolbar";
import { ScannerFindings } from "./scanner-marks";
import { StepDetails } from "./step-details";
import { analysisOf } from "./step-grounding";
import { StepStage, type StageLayer } from "./step-stage";
import { neighbourPositions, stepOrPlaceholder, useStepWindows } from "./step-windows";
import { TaskPanel } from "./task-panel";
import { useStepKeys } from "./use-step-keys";
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

/**
 * The step on screen and playback: stepping stops playback; playing advances on a timer at the chosen speed and
 * stops at the end (from the end, play starts again at the first step).
 */
function usePlayback(n: number, initialStep: number) {
  const [current, setCurrent] = useState(() => clampStep(initialStep - 1, Math.max(1, n)));
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  useEffect(() => {
    if (!playing) return;
    if (current >= n - 1) {
      setPlaying(false);
      return;
    }
    const t = setTimeout(() => setCurrent((c) => clampStep(c + 1, n)), BASE_STEP_MS / speed);
    return () => clearTimeout(t);
  }, [playing, current, n, speed]);
  const go = useCallback((i: number) => setCurrent(clampStep(i, n)), [n]);
  const selectStep = useCallback(
    (i: number) => {
      setPlaying(false);
      go(i);
    },
    [go],
  );
  const step = useCallback(
    (cmd: "prev" | "next" | "first" | "last") => {
      setPlaying(false);
      if (cmd === "prev") setCurrent((c) => clampStep(c - 1, n));
      else if (cmd === "next") setCurrent((c) => clampStep(c + 1, n));
      else setCurrent(cmd === "first" ? 0 : Math.max(0, n - 1));
    },
    [n],
  );
  const togglePlay = useCallback(() => {
    setPlaying((p) => {
      if (!p) setCurrent((c) => (c >= n - 1 ? 0 : c));
      return !p;
    });
  }, [n]);
  return { current, setCurrent, playing, speed, setSpeed, go, selectStep, step, togglePlay };
}

/** What the viewer switched on or off: the overlays, raw screenshots, the zoom, the help and the evaluations panel. */
function useViewSwitches(evaluationsOpen: boolean) {
  const [showSom, setShowSom] = useState(true);
  const [showAction, setShowAction] = useState(true);
  const [preferRaw, setPreferRaw] = useState(false);
  const [zoom, setZoom] = useState(false);
  const [help, setHelp] = useState(false);
  const [showEvaluations, setShowEvaluations] = useState(evaluationsOpen);
  return { showSom, setShowSom, showAction, setShowAction, preferRaw, setPreferRaw, zoom, setZoom, help, setHelp, showEvaluations, setShowEvaluations };
}

type Playback = ReturnType<typeof usePlayback>;
type ViewSwitches = ReturnType<typeof useViewSwitches>;

/** Runs a key's or a button's command (server/domain/player/keyboard.ts) on the playback and the view. */
function usePlayerCommands(playback: Playback, view: ViewSwitches, openComments: () => void) {
  const { step, togglePlay, setSpeed } = playback;
  const { setShowSom, setShowAction, setPreferRaw, setZoom, setHelp, setShowEvaluations } = view;
  return useCallback(
    (cmd: PlayerCommand) => {
      const flip = (set: (f: (v: boolean) => boolean) => void) => set((v) => !v);
      switch (cmd) {
        case "prev":
        case "next":
        case "first":
        case "last":
          return step(cmd);
        case "togglePlay":
          return togglePlay();
        case "faster":
        case "slower":
          return setSpeed((s) => nextSpeed(s, cmd === "faster" ? 1 : -1));
        case "toggleOverlay":
          return flip(setShowSom);
        case "toggleAction":
          return flip(setShowAction);
        case "toggleRaw":
          return flip(setPreferRaw);
        case "toggleZoom":
          return flip(setZoom);
        case "toggleHelp":
          return flip(setHelp);
        case "toggleEvaluations":
          return flip(setShowEvaluations);
        case "comments":
          return openComments();
        case "close":
          setZoom(false);
          setHelp(false);
          return;
      }
    },
    [step, togglePlay, setSpeed, setShowSom, setShowAction, setPreferRaw, setZoom, setHelp, setShowEvaluations, openComments],
  );
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
  const playback = usePlayback(n, initialStep);
  const { current, go } = playback;
  const view = useViewSwitches(evaluationsOpen);
  const { showEvaluations, setShowEvaluations } = view;
  const evaluations = useEvaluations(data.trajectory.id, showEvaluations, n);
  const comments = usePlayerComments(commentsAccess, showEvaluations, setShowEvaluations);

  const { stepAt, windowError } = useStepWindows(data.window, index, current, loadWindow, initialWindow);
  const loaded = stepAt(current);
  // Until its window arrives, the step shows what the index knows (its screenshot), its details say loading.
  const step = stepOrPlaceholder(loaded, index[current]);
  const entry = index[current];
  const analysis = useMemo(() => entry && analysisOf(entry, loaded), [entry, loaded]);

  const { cited, cite } = useCitedRegion(initialRegion, clampStep(initialStep - 1, Math.max(1, n)), n, playback.setCurrent);
  const region = cited && cited.position === current ? cited.box : null;
  useAddressBar(current, n, showEvaluations, region);
  const toggleEvaluations = useCallback(() => setShowEvaluations((v) => !v), [setShowEvaluations]);

  const run = usePlayerCommands(playback, view, comments.open);
  const commentsKey = comments.key;
  const commandFor = useCallback(
    (e: KeyLike, target: TargetLike | null) => (commentsKey && isCommentsKey(e, target) ? "comments" : commandForKey(e, target)),
    [commentsKey],
  );
  useStepKeys(commandFor, run, view.help);

  const showRaw = view.preferRaw && !!step?.rawScreenshot;
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
        <StepViewer
          data={data}
          index={index}
          stepAt={stepAt}
          playback={playback}
          view={view}
          step={step}
          pending={!loaded && !!step}
          analysis={analysis}
          showRaw={showRaw}
          region={region}
          stageLayer={stageLayer}
          evaluationMarks={evaluations.marks}
          comments={comments}
          onDisplayWidth={onDisplayWidth}
          run={run}
        />
        <DetailsColumn
          data={data}
          panel={panel}
          panelFirst={sidePanelFirst}
          current={current}
          count={n}
          step={step}
          pending={!loaded && !!step}
          windowError={windowError}
          analysis={analysis}
          showRaw={showRaw}
          comments={comments}
          evaluations={showEvaluations ? evaluations : null}
          onCloseEvaluations={setShowEvaluations}
          go={go}
          selectStep={playback.selectStep}
          cite={cite}
        />
      </div>

      {view.zoom && step && (
        <ZoomView
          step={step}
          showRaw={showRaw}
          showSom={view.showSom}
          showAction={view.showAction}
          position={current + 1}
          count={n}
          onClose={() => view.setZoom(false)}
        />
      )}
      {view.help && (
        <PlayerHelp withLink={!!stepLink} extra={comments.key ? [COMMENTS_SHORTCUT, ...extraShortcuts] : extraShortcuts} onClose={() => view.setHelp(false)} />
      )}
    </div>
  );
}

/** The middle column: the toolbar, the step's screenshot with its overlay (and the page's layer), the filmstrip. */
function StepViewer({
  data,
  index,
  stepAt,
  playback,
  view,
  step,
  pending,
  analysis,
  showRaw,
  region,
  stageLayer,
  evaluationMarks,
  comments,
  onDisplayWidth,
  run,
}: {
  data: PlayerData;
  index: StepIndexEntry[];
  stepAt: (i: number) => PlayerStepData | undefined;
  playback: Playback;
  view: ViewSwitches;
  step: PlayerStepData | undefined;
  pending: boolean;
  analysis: StepAnalysis | undefined;
  showRaw: boolean;
  region: CitationBox | null;
  stageLayer?: StageLayer;
  evaluationMarks: EvaluationsState["marks"];
  comments: PlayerComments;
  onDisplayWidth?: (variantWidth: number, fromStep: number, raw: boolean) => void;
  run: (cmd: PlayerCommand) => void;
}) {
  const { current } = playback;
  const n = index.length;
  // Thumbnails wait for the first large image, so they never compete with it (or its neighbours) for the
  // server's encoder on a cold cache.
  const [firstImageShown, setFirstImageShown] = useState(false);
  return (
    <section aria-label="Step viewer" className="flex min-h-0 min-w-0 flex-1 flex-col">
      {n === 0 || !step || !analysis ? (
        <div className="grid flex-1 place-items-center p-8 text-zinc-500">This trajectory has no steps.</div>
      ) : (
        <>
          <PlayerToolbar
            current={current}
            count={n}
            playing={playback.playing}
            speed={playback.speed}
            showSom={view.showSom}
            showAction={view.showAction}
            showRaw={showRaw}
            canRaw={!!step.rawScreenshot}
            hasBoxes={!!step.elements?.some((e) => e.bbox)}
            run={run}
          />
          <StepStage
            step={step}
            pending={pending}
            showRaw={showRaw}
            showSom={view.showSom}
            showAction={view.showAction}
            analysis={analysis}
            isLast={current === n - 1}
            neighbours={neighbourPositions(current).map((i) => stepOrPlaceholder(stepAt(i), index[i]))}
            onZoom={() => view.setZoom(true)}
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
            evaluationMarks={evaluationMarks}
            openComments={comments.enabled ? comments.state.openByStep : undefined}
            trajectoryId={data.trajectory.id}
            onSelect={playback.selectStep}
          />
        </>
      )}
    </section>
  );
}

/**
 * The right column: the step in words (or the comments, or the evaluations, in its place), and the page's side panel
 * (the label form) above or below it.
 */
function DetailsColumn({
  data,
  panel,
  panelFirst,
  current,
  count,
  step,
  pending,
  windowError,
  analysis,
  showRaw,
  comments,
  evaluations,
  onCloseEvaluations,
  go,
  selectStep,
  cite,
}: {
  data: PlayerData;
  panel: ReactNode;
  panelFirst: boolean;
  current: number;
  count: number;
  step: PlayerStepData | undefined;
  pending: boolean;
  windowError: string | null;
  analysis: StepAnalysis | undefined;
  showRaw: boolean;
  comments: PlayerComments;
  /** The evaluations, when their panel is open. */
  evaluations: EvaluationsState | null;
  onCloseEvaluations: (open: false) => void;
  go: (i: number) => void;
  selectStep: (i: number) => void;
  cite: (i: number, box: CitationBox | null) => void;
}) {
  const ref = useScrollIntoViewOnOpen(!!evaluations || comments.show, SIDE_PANELS);
  const closeEvaluations = useCallback(() => onCloseEvaluations(false), [onCloseEvaluations]);
  let body: ReactNode = null;
  if (comments.show) body = <CommentsPanel comments={comments} current={current} count={count} go={selectStep} />;
  else if (evaluations) body = <EvaluationsPanel state={evaluations} go={go} cite={cite} onClose={closeEvaluations} />;
  else if (step && pending) body = <PendingDetails position={current + 1} count={count} error={windowError} />;
  else if (step && analysis)
    body = (
      <>
        <StepDetails step={step} position={current + 1} count={count} analysis={analysis} showingRaw={showRaw} />
        <ScannerFindings trajectoryId={data.trajectory.id} stepIndex={step.index} />
        {/* Live runs' network log and prompts; a blind item (id 0) never asks. */}
        {data.trajectory.sourceFormat === "verdict-runner" && data.trajectory.id !== 0 && (
          <LiveEvidencePanel trajectoryId={data.trajectory.id} step={step.index} recording={data.trajectory.outcome === "running"} />
        )}
      </>
    );
  return (
    <aside ref={ref} aria-label="Step details" className={DETAILS_COLUMN}>
      {panel && panelFirst && <div className="border-b border-zinc-200">{panel}</div>}
      {body}
      {/* Label panel slot: the annotation issue renders its form here. */}
      {panel && !panelFirst && <div className="border-t border-zinc-200">{panel}</div>}
    </aside>
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
