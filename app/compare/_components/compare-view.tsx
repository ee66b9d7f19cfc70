"use client";
/**
 * Side by side: two to four attempts at one task in columns that step together. Each column shows its
 * trajectory's header (run, agent, model, outcome, every evaluation's verdict), the step's screenshot with the
 * player's Set-of-Marks overlay, and the step's action and thought. The columns are aligned by step number or by
 * the URLs visited (app/compare/_lib/alignment.ts); the first row where the attempts differ is marked. The parts
 * are the player's (its stage, step text, controls, zoom, help and key handling), so each exists once.
 *
 * Data comes from the player's procedures (trajectories.byId, trajectories.steps, judge.verdicts.panel), so the
 * access and blind rules are the server's. Keys as in the player (see _lib/keyboard.ts); the alignment and the
 * row live in the URL (?mode=url&row=N) via history.replaceState.
 */
import { useMutation, useQuery, useQueryClient, useSuspenseQueries } from "@tanstack/react-query";
import Link from "next/link";
import { runLabels } from "@/server/domain/catalog/run-labels";
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { describeAction } from "@/server/domain/player/action-text";
import { fromJsonText, STEP_WINDOW, unpackStepIndex, type StepIndexEntry } from "@/server/domain/player/paging";
import { stepLinkPath } from "@/server/domain/trajectories/step-links";
import { ShortcutsHelp } from "../../_components/shortcuts-help";
import { useTRPC } from "../../_trpc/client";
import type { PlayerData, PlayerStepData, StepAnalysis } from "../../trajectories/[id]/_components/player";
import { OutcomeAndLength } from "../../trajectories/[id]/_components/player-header";
import { analysisOf } from "../../trajectories/[id]/_components/step-grounding";
import { CopyStepLink } from "../../trajectories/[id]/_components/copy-step-link";
import { HelpButton, noFocus, StepNav, Toggle } from "../../trajectories/[id]/_components/step-controls";
import { StepBrief } from "../../trajectories/[id]/_components/step-details";
import { StepStage } from "../../trajectories/[id]/_components/step-stage";
import { neighbourPositions, stepOrPlaceholder } from "../../trajectories/[id]/_components/step-windows";
import { useStepKeys } from "../../trajectories/[id]/_components/use-step-keys";
import { useViewSwitches, type SwitchCommand } from "../../trajectories/[id]/_components/view-switches";
import { ZoomView } from "../../trajectories/[id]/_components/zoom-view";
import { align, missingUrls, rowForStep, type Alignment, type AlignmentRow, type StepSignature, type SyncMode } from "../_lib/alignment";
import { COMPARE_SHORTCUTS, compareCommandForKey, type CompareCommand } from "../_lib/keyboard";

/** Letters naming the columns, so the lanes and the columns can be matched at a glance. */
const COLUMN_NAMES = ["A", "B", "C", "D"];

/**
 * As in the player: once per trajectory and display width, the server encodes every step at that width from the
 * step on screen, so stepping never waits for an encode (four columns ask for four images per key press).
 */
function useWarmAtWidth() {
  const trpc = useTRPC();
  const { mutate: warm } = useMutation(trpc.trajectories.warmImages.mutationOptions());
  const warmed = useRef(new Set<string>());
  return useCallback(
    (trajectoryId: number, width: number, fromStep: number) => {
      const key = `${trajectoryId}:${width}`;
      if (warmed.current.has(key)) return;
      warmed.current.add(key);
      warm({ id: trajectoryId, width, fromStep, raw: false });
    },
    [warm],
  );
}

export function CompareView({ ids, initialMode, initialRow }: { ids: number[]; initialMode: SyncMode; initialRow: number }) {
  const trpc = useTRPC();
  const results = useSuspenseQueries({ queries: ids.map((id) => trpc.trajectories.byId.queryOptions({ id })) });
  const datas = useSameItems(results.map((r) => r.data as PlayerData));
  const indexes = useMemo(() => datas.map((d) => unpackStepIndex(fromJsonText(d.index))), [datas]);
  const labels = useMemo(() => runLabels(datas.filter((d) => !d.agentHidden).map((d) => d.run.name)), [datas]);
  const { steps, complete, error } = useAllSteps(datas, indexes);

  const [mode, setMode] = useState<SyncMode>(initialMode);
  // URL alignment needs every step's URL: until all windows are in, the columns stay aligned by step.
  const { signatures, urlProblem, effectiveMode, alignment } = useAlignment(steps, indexes, complete, mode);
  const rowCount = alignment.rows.length;

  const onDisplayWidth = useWarmAtWidth();

  const [row, setRow] = useState(() => Math.max(0, Math.min(initialRow, Math.max(0, rowCount - 1))));
  const { showSom, showAction, help, setHelp, flip } = useViewSwitches();
  const [zoom, setZoom] = useState<number | null>(null);
  const view = { flip, setHelp, setZoom };

  // Switching alignment keeps the first column's step on screen (or the nearest one before it).
  const switchMode = useCallback(
    (next: SyncMode) => {
      if (next === mode) return;
      const anchor = Math.max(0, alignment.rows[row]?.findIndex((p) => p !== null) ?? 0);
      const step = alignment.rows[row]?.[anchor] ?? 0;
      const nextRows = next === "url" && complete ? align("url", signatures).rows : next === "step" ? align("step", signatures).rows : alignment.rows;
      setMode(next);
      setRow(rowForStep(nextRows, anchor, step));
    },
    [mode, alignment.rows, row, complete, signatures],
  );

  // The row stays in range when the alignment changes under it (URL alignment arriving).
  const current = Math.max(0, Math.min(row, rowCount - 1));
  useAddressBar(mode, current);

  const run = useCompareCommands({ current, rowCount, divergence: alignment.divergence, setRow, switchMode, ...view });
  useStepKeys(compareCommandForKey, run, help || zoom !== null);

  const task = datas[0]!.task;
  const cells = alignment.rows[current] ?? datas.map(() => null);
  const atDivergence = alignment.divergence !== null && alignment.divergence === current;
  const zoomStep = zoom !== null ? stepAtPosition(steps[zoom]!, indexes[zoom]!, cells[zoom] ?? null) : undefined;

  return (
    <div className="flex min-h-0 flex-1 flex-col lg:h-[calc(100dvh-2.75rem)]" data-testid="compare" data-mode={effectiveMode} data-columns={datas.length}>
      <div className="flex min-h-10 shrink-0 flex-wrap items-center gap-x-3 gap-y-1 border-b border-zinc-200 bg-white px-4 py-1 text-[12px]">
        <CompareTitle task={task} />
        <Controls
          mode={mode}
          effectiveMode={effectiveMode}
          complete={complete}
          current={current}
          count={rowCount}
          divergence={alignment.divergence}
          approximate={alignment.approximate}
          urlProblem={urlProblem}
          showSom={showSom}
          showAction={showAction}
          run={run}
        />
      </div>
      {error && (
        <p className="shrink-0 bg-rose-50 px-4 py-1 text-[12px] text-rose-700" role="alert">
          Could not load every step: {error}
        </p>
      )}
      <Lanes rows={alignment.rows} columns={datas.length} divergence={alignment.divergence} current={current} onSelect={setRow} />
      <div className={`grid min-h-0 flex-1 gap-px overflow-y-auto bg-zinc-200 ${GRID[datas.length] ?? "grid-cols-2"}`} data-testid="compare-grid">
        {datas.map((d, t) => {
          const position = cells[t] ?? null;
          return (
            <section
              key={d.trajectory.id}
              aria-label={`Column ${COLUMN_NAMES[t]}: trajectory ${d.trajectory.id}`}
              className="flex min-h-0 min-w-0 flex-col bg-white"
              data-testid="compare-column"
              data-trajectory={d.trajectory.id}
            >
              <ColumnHeader data={d} name={COLUMN_NAMES[t]!} position={position} runLabel={labels.get(d.run.name)} />
              <ColumnStep
                trajectoryId={d.trajectory.id}
                step={stepAtPosition(steps[t]!, indexes[t]!, position)}
                pending={position !== null && !steps[t]![position]}
                position={position}
                count={indexes[t]!.length}
                analysis={position === null ? undefined : analysisOf(indexes[t]![position]!, steps[t]![position])}
                neighbours={neighbourSteps(alignment.rows, current, t, steps[t]!, indexes[t]!)}
                gap={position === null ? gapText(alignment.rows, current, t, effectiveMode, indexes[t]!.length) : null}
                diverges={atDivergence}
                showSom={showSom}
                showAction={showAction}
                column={t}
                onZoom={setZoom}
                onDisplayWidth={onDisplayWidth}
              />
            </section>
          );
        })}
      </div>
      {zoom !== null && zoomStep && (
        <ZoomView
          step={zoomStep}
          showRaw={false}
          showSom={showSom}
          showAction={showAction}
          position={(cells[zoom] ?? 0) + 1}
          count={indexes[zoom]!.length}
          onClose={() => setZoom(null)}
        />
      )}
      {help && (
        <ShortcutsHelp
          shortcuts={COMPARE_SHORTCUTS}
          footnote="Keys are ignored while you type in a field. The alignment and the step are kept in the URL (?mode=url&row=N), so links reopen them."
          onClose={() => setHelp(false)}
        />
      )}
    </div>
  );
}

/** Keeps the alignment (?mode=url) and the row (?row=N) in the address bar without a navigation. */
function useAddressBar(mode: SyncMode, current: number) {
  useEffect(() => {
    const url = new URL(window.location.href);
    const want = { mode: mode === "url" ? "url" : null, row: current > 0 ? String(current + 1) : null };
    let changed = false;
    for (const [k, v] of Object.entries(want)) {
      if (url.searchParams.get(k) === v) continue;
      if (v === null) url.searchParams.delete(k);
      else url.searchParams.set(k, v);
      changed = true;
    }
    if (changed) window.history.replaceState(window.history.state, "", url.toString().replace(/%2C/g, ","));
  }, [mode, current]);
}

type Setter<T> = (value: T | ((previous: T) => T)) => void;

/** Runs a key's or a button's command (app/compare/_lib/keyboard.ts) on the columns' row and the view. */
function useCompareCommands({
  current,
  rowCount,
  divergence,
  setRow,
  switchMode,
  flip,
  setHelp,
  setZoom,
}: {
  current: number;
  rowCount: number;
  divergence: number | null;
  setRow: (row: number) => void;
  switchMode: (mode: SyncMode) => void;
  flip: (command: SwitchCommand) => void;
  setHelp: Setter<boolean>;
  setZoom: Setter<number | null>;
}) {
  return useCallback(
    (cmd: CompareCommand) => {
      switch (cmd) {
        case "prev":
          setRow(Math.max(0, current - 1));
          break;
        case "next":
          setRow(Math.min(rowCount - 1, current + 1));
          break;
        case "first":
          setRow(0);
          break;
        case "last":
          setRow(Math.max(0, rowCount - 1));
          break;
        case "byStep":
          switchMode("step");
          break;
        case "byUrl":
          switchMode("url");
          break;
        case "divergence":
          if (divergence !== null) setRow(divergence);
          break;
        case "toggleOverlay":
        case "toggleAction":
        case "toggleHelp":
          flip(cmd);
          break;
        case "close":
          setHelp(false);
          setZoom(null);
          break;
      }
    },
    [current, rowCount, switchMode, divergence, setRow, flip, setHelp, setZoom],
  );
}

/** The way back to the task, and the task's id and intent. */
function CompareTitle({ task }: { task: PlayerData["task"] }) {
  return (
    <>
      <Link href={`/tasks/${task.id}`} className="shrink-0 text-zinc-500 hover:text-zinc-800" data-testid="compare-back">
        ← Task
      </Link>
      <span className="text-zinc-300">/</span>
      <h1 className="flex min-w-0 flex-1 items-baseline gap-2">
        <span className="shrink-0 font-semibold text-zinc-900">Side by side</span>
        <span className="shrink-0 font-mono text-zinc-700">{task.externalId}</span>
        <span className="min-w-0 truncate text-zinc-500" title={task.intent}>
          {task.intent}
        </span>
      </h1>
    </>
  );
}

/**
 * Columns per count. Four columns at 1280 px would leave each screenshot about 300 px wide: below 1600 px four
 * attempts go two by two (each row at least tall enough for a readable screenshot; the grid scrolls).
 */
const GRID: Record<number, string> = {
  2: "grid-cols-2 auto-rows-[minmax(500px,1fr)]",
  3: "grid-cols-3 auto-rows-[minmax(500px,1fr)]",
  4: "grid-cols-2 auto-rows-[minmax(500px,1fr)] min-[1600px]:grid-cols-4",
};

/** The same array as last render while its items are the same objects, so memos keyed on it hold. */
function useSameItems<T>(items: T[]): T[] {
  const [kept, setKept] = useState(items);
  if (items.length !== kept.length || items.some((x, i) => x !== kept[i])) {
    setKept(items);
    return items;
  }
  return kept;
}

function signatureOf(step: PlayerStepData | undefined, entry: StepIndexEntry): StepSignature {
  return step ? { url: step.url, action: describeAction(step.action, 200) } : { url: null, action: entry.action };
}

/** A column's step at a position of its trajectory: its details, or until they arrive its placeholder (as in the player). */
function stepAtPosition(list: (PlayerStepData | undefined)[], index: StepIndexEntry[], position: number | null): PlayerStepData | undefined {
  return position === null ? undefined : stepOrPlaceholder(list[position], index[position]);
}

/** The steps this column shows on the next rows (and the previous one): their screenshots are fetched ahead. */
function neighbourSteps(rows: AlignmentRow[], current: number, t: number, list: (PlayerStepData | undefined)[], index: StepIndexEntry[]) {
  return neighbourPositions(current).map((r) => stepAtPosition(list, index, rows[r]?.[t] ?? null));
}

/** Why a column has no step on this row. */
function gapText(rows: AlignmentRow[], current: number, t: number, mode: SyncMode, count: number): string {
  if (count === 0) return "This trajectory has no steps.";
  const later = rows.slice(current + 1).some((r) => r[t] !== null && r[t] !== undefined);
  if (mode === "step" || !later) return `Ended after ${count} step${count === 1 ? "" : "s"}.`;
  return "No step on this page: this attempt was elsewhere here.";
}

/**
 * Every step's details for each trajectory: the payload's first window, then the other windows in order, one
 * request at a time per trajectory (URL alignment and the divergence need every step's URL and action).
 */
function useAllSteps(datas: PlayerData[], indexes: StepIndexEntry[][]) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [windows, setWindows] = useState<Map<string, PlayerStepData[]>>(() => new Map());
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    for (const d of datas) {
      const id = d.trajectory.id;
      const count = d.stepCount;
      void (async () => {
        for (let from = STEP_WINDOW; from < count; from += STEP_WINDOW) {
          if (!live) return;
          try {
            const w = await queryClient.fetchQuery({ ...trpc.trajectories.steps.queryOptions({ id, from }), staleTime: Infinity });
            if (!live) return;
            const parsed = fromJsonText(w.steps);
            setWindows((m) => new Map(m).set(`${id}:${w.from}`, parsed));
          } catch (e) {
            if (live) setError(e instanceof Error ? e.message : String(e));
            return;
          }
        }
      })();
    }
    return () => {
      live = false;
    };
  }, [datas, queryClient, trpc]);

  return useMemo(() => {
    let complete = true;
    const steps = datas.map((d, t) => {
      const n = indexes[t]!.length;
      const list: (PlayerStepData | undefined)[] = new Array(n);
      const first = fromJsonText(d.window.steps);
      first.forEach((s, i) => {
        if (d.window.from + i < n) list[d.window.from + i] = s;
      });
      for (let from = 0; from < n; from += STEP_WINDOW) {
        if (from === d.window.from) continue;
        const w = windows.get(`${d.trajectory.id}:${from}`);
        if (!w) {
          complete = false;
          continue;
        }
        w.forEach((s, i) => {
          if (from + i < n) list[from + i] = s;
        });
      }
      return list;
    });
    return { steps, complete, error };
  }, [datas, indexes, windows, error]);
}

function Controls({
  mode,
  effectiveMode,
  complete,
  current,
  count,
  divergence,
  approximate,
  urlProblem,
  showSom,
  showAction,
  run,
}: {
  mode: SyncMode;
  effectiveMode: SyncMode;
  complete: boolean;
  current: number;
  count: number;
  divergence: number | null;
  approximate: boolean;
  /** Which attempts recorded no URL (said beside the toggle); none: no attempt did, so By URL has nothing to align. */
  urlProblem: { text: string; none: boolean } | null;
  showSom: boolean;
  showAction: boolean;
  run: (c: CompareCommand) => void;
}) {
  const urlsNone = !!urlProblem?.none;
  return (
    <div role="toolbar" aria-label="Side-by-side controls" className="flex shrink-0 flex-wrap items-center gap-1.5">
      <div className="flex items-center rounded-md ring-1 ring-zinc-200" role="group" aria-label="Align the columns">
        <Toggle on={mode === "step"} onClick={() => run("byStep")} title="Align by step number (s)" testId="mode-step">
          By step
        </Toggle>
        <Toggle
          on={mode === "url" && !urlsNone}
          onClick={() => run("byUrl")}
          disabled={urlsNone}
          title={
            urlsNone
              ? urlProblem!.text
              : approximate
                ? "Too many pages to match exactly: aligned by step order (u)"
                : "Align by the URLs visited; a page one attempt skipped shows a gap (u)"
          }
          testId="mode-url"
        >
          By URL
        </Toggle>
      </div>
      {urlProblem && (
        <span className="text-2xs text-amber-800" data-testid="url-problem">
          {urlProblem.text}
        </span>
      )}
      {mode === "url" && effectiveMode !== "url" && !complete && <span className="text-2xs text-zinc-500">Loading every step&apos;s URL…</span>}
      <StepNav
        current={current}
        count={count}
        counterTestId="compare-counter"
        counter={
          <>
            {effectiveMode === "url" ? "Row" : "Step"} <strong className="text-zinc-900">{count ? current + 1 : 0}</strong> of {count}
          </>
        }
        onStep={run}
      />
      <button
        type="button"
        className={`btn ${divergence !== null && divergence === current ? "btn-on" : ""}`}
        onMouseDown={noFocus}
        onClick={() => run("divergence")}
        disabled={divergence === null}
        title="Go to where the attempts first differ: another page, another action, or one has no step there (d)"
        data-testid="divergence"
      >
        {!complete
          ? "Checking where they differ…"
          : divergence === null
            ? "No difference"
            : `First difference: ${effectiveMode === "url" ? "row" : "step"} ${divergence + 1}`}
      </button>
      <Toggle on={showSom} onClick={() => run("toggleOverlay")} title="Set-of-Marks boxes (o)" testId="toggle-som">
        SoM
      </Toggle>
      <Toggle on={showAction} onClick={() => run("toggleAction")} title="Action overlay (a)" testId="toggle-action">
        Action
      </Toggle>
      <HelpButton onClick={() => run("toggleHelp")} />
    </div>
  );
}

/** The columns' alignment: by URL when asked, every step's URL is in and some attempt recorded URLs; else by step. */
function useAlignment(steps: (PlayerStepData | undefined)[][], indexes: StepIndexEntry[][], complete: boolean, mode: SyncMode) {
  const signatures = useMemo(() => steps.map((list, t) => list.map((s, i) => signatureOf(s, indexes[t]![i]!))), [steps, indexes]);
  const urlProblem = useMemo(() => (complete ? missingUrls(signatures) : null), [complete, signatures]);
  const effectiveMode: SyncMode = mode === "url" && complete && !urlProblem?.none ? "url" : "step";
  const alignment = useMemo<Alignment>(() => {
    const result = align(effectiveMode, signatures);
    // Before every step's details are in, unknown URLs could look like a difference: say nothing yet.
    return complete ? result : { ...result, divergence: null };
  }, [effectiveMode, signatures, complete]);
  return { signatures, urlProblem, effectiveMode, alignment };
}

/** Above this many rows the lanes draw no cell per row (too thin to click); the playhead and divergence remain. */
const LANE_CELLS_UP_TO = 400;

/**
 * One lane per column: a cell per row, filled where the column has a step and empty at a gap, the first
 * difference in rose. The playhead is drawn on top, so stepping does not redraw the cells.
 */
const Lanes = memo(function Lanes({
  rows,
  columns,
  divergence,
  current,
  onSelect,
}: {
  rows: AlignmentRow[];
  columns: number;
  divergence: number | null;
  current: number;
  onSelect: (row: number) => void;
}) {
  if (rows.length === 0) return null;
  const at = (r: number) => `${(r / rows.length) * 100}%`;
  return (
    <div className="relative shrink-0 border-b border-zinc-200 bg-white px-4 py-1.5" data-testid="compare-lanes" aria-label="Alignment of the columns">
      <div className="relative ml-5 flex flex-col gap-0.5">
        {Array.from({ length: columns }, (_, t) => (
          <LaneCells key={t} rows={rows} column={t} divergence={divergence} onSelect={onSelect} />
        ))}
        {divergence !== null && (
          <span
            aria-hidden
            className="pointer-events-none absolute -top-0.5 -bottom-0.5 w-0.5 bg-rose-500"
            style={{ left: at(divergence) }}
            data-testid="divergence-mark"
          />
        )}
        <span
          aria-hidden
          className="pointer-events-none absolute -top-1 -bottom-1 rounded-sm ring-2 ring-indigo-500"
          style={{ left: at(current), width: `max(4px, ${100 / rows.length}%)` }}
        />
      </div>
    </div>
  );
});

const LaneCells = memo(function LaneCells({
  rows,
  column,
  divergence,
  onSelect,
}: {
  rows: AlignmentRow[];
  column: number;
  divergence: number | null;
  onSelect: (row: number) => void;
}) {
  const present = rows.filter((r) => r[column] !== null).length;
  return (
    <div
      className="relative flex h-2.5 items-stretch"
      title={`Column ${COLUMN_NAMES[column]}: ${present} step${present === 1 ? "" : "s"}, ${rows.length - present} gap${rows.length - present === 1 ? "" : "s"}`}
    >
      <span className="absolute -left-5 text-[10px] leading-[10px] font-semibold text-zinc-500">{COLUMN_NAMES[column]}</span>
      {rows.length <= LANE_CELLS_UP_TO ? (
        rows.map((r, i) => (
          <button
            key={i}
            type="button"
            tabIndex={-1}
            aria-label={`Row ${i + 1}`}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => onSelect(i)}
            className={`min-w-0 flex-1 border-r border-white ${r[column] === null ? "bg-zinc-100" : divergence !== null && i >= divergence ? "bg-rose-300" : "bg-zinc-400"}`}
            data-gap={r[column] === null || undefined}
          />
        ))
      ) : (
        <span className="flex-1 bg-zinc-300" />
      )}
    </div>
  );
});

/**
 * Run, agent and model (hidden when the blind rule hides them), outcome, and every evaluation's verdict. `runLabel`:
 * the run's name less the path prefix the columns' runs share (server/domain/catalog/run-labels.ts).
 */
const ColumnHeader = memo(function ColumnHeader({
  data,
  name,
  position,
  runLabel,
}: {
  data: PlayerData;
  name: string;
  position: number | null;
  runLabel?: string;
}) {
  const { trajectory: t, run } = data;
  // The same stable link as the player's "Copy link", to this column's step on screen (none while it has no step here).
  const stepLink = position === null ? null : stepLinkPath({ key: t.linkKey, id: t.id }, position + 1);
  return (
    <header className="flex shrink-0 flex-col gap-1 border-b border-zinc-200 px-3 py-1.5 text-[12px]" data-testid="compare-header">
      <div className="flex min-w-0 items-center gap-2">
        <span className="grid size-5 shrink-0 place-items-center rounded bg-zinc-800 text-[11px] font-semibold text-white" aria-hidden>
          {name}
        </span>
        <Link href={`/trajectories/${t.id}`} className="shrink-0 font-mono text-zinc-500 hover:text-zinc-800 hover:underline">
          #{t.id}
        </Link>
        {data.agentHidden ? (
          <span className="truncate text-zinc-400 italic" data-testid="agent-hidden">
            agent hidden
          </span>
        ) : (
          <span className="min-w-0 truncate" title={`${run.name} · ${run.agentName}${run.model ? ` · ${run.model}` : ""}`} data-testid="compare-run">
            <span className="font-medium text-zinc-900">{runLabel ?? run.name}</span>
            {run.agentName && run.agentName !== run.name && <span className="text-zinc-500"> · {run.agentName}</span>}
            {run.model && <span className="font-mono text-zinc-500"> · {run.model}</span>}
          </span>
        )}
        {t.attempt > 0 && <span className="shrink-0 text-zinc-500">attempt {t.attempt + 1}</span>}
        <span className="ml-auto flex shrink-0 items-center gap-1.5">
          <OutcomeAndLength trajectory={t} lengthClass="text-2xs" />
          {stepLink && (
            <CopyStepLink
              path={stepLink}
              keyboard={false}
              title={`Copy a link to step ${position! + 1} of #${t.id}; it keeps working after the run is imported again`}
            />
          )}
        </span>
      </div>
      <Verdicts trajectoryId={t.id} hidden={data.agentHidden} />
    </header>
  );
});

const PILL: Record<string, string> = {
  success: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  failure: "bg-rose-50 text-rose-800 ring-rose-600/20",
  unsure: "bg-amber-50 text-amber-800 ring-amber-600/20",
};

/** Each evaluation's verdict in a line: consolidated human label first, then judges, rules and imported verdicts. */
function Verdicts({ trajectoryId, hidden }: { trajectoryId: number; hidden: boolean }) {
  const trpc = useTRPC();
  const query = useQuery({ ...trpc.judge.verdicts.panel.queryOptions({ trajectoryId }), enabled: !hidden });
  const data = query.data;
  let body;
  if (hidden) body = <span className="text-zinc-400 italic">Evaluations hidden until you have labelled it.</span>;
  else if (query.status === "error") body = <span className="text-rose-700">{query.error.message}</span>;
  else if (!data) body = <span className="text-zinc-400">Loading evaluations…</span>;
  else if (data.hidden)
    body = (
      <span className="text-amber-800" data-testid="evaluations-hidden">
        {data.message}
      </span>
    );
  else {
    const items = [
      ...data.consolidated.map((c) => ({
        key: `c${c.campaignId}`,
        who: "Humans",
        verdict: c.verdict,
        title: `Consolidated label, ${c.campaignName}${c.category ? `: ${c.category}` : ""}`,
      })),
      ...data.verdicts.map((v) => ({
        key: `v${v.id}`,
        who: v.evaluatorName,
        verdict: v.verdict,
        title: `${v.kind === "rule" ? "Rule" : v.origin === "import" ? "Imported verdict" : "Judge"} ${v.evaluatorName}${v.rationale ? `: ${v.rationale.slice(0, 300)}` : ""}`,
      })),
    ];
    const labels = data.labels.length;
    body =
      items.length || labels ? (
        <>
          {items.map((it) => (
            <span
              key={it.key}
              className={`inline-flex max-w-full min-w-0 items-center gap-1 rounded px-1.5 py-px text-2xs ring-1 ring-inset ${PILL[it.verdict] ?? "bg-zinc-100 text-zinc-700 ring-zinc-500/20"}`}
              title={it.title}
              data-testid="compare-verdict"
            >
              <span className="min-w-0 truncate">{it.who}</span>
              <strong className="shrink-0 font-semibold">{it.verdict.replace("_", " ")}</strong>
            </span>
          ))}
          {labels > 0 && (
            <span className="text-2xs text-zinc-500">
              {labels} human label{labels === 1 ? "" : "s"}
            </span>
          )}
        </>
      ) : (
        <span className="text-zinc-400">No evaluations yet.</span>
      );
  }
  return (
    <div className="flex min-h-5 min-w-0 flex-wrap items-center gap-1 text-2xs" data-testid="compare-verdicts">
      {body}
    </div>
  );
}

/** The column's step: screenshot with the player's overlay, then the action and the thought; a gap says why. */
const ColumnStep = memo(function ColumnStep({
  trajectoryId,
  step,
  pending,
  position,
  count,
  analysis,
  neighbours,
  gap,
  diverges,
  showSom,
  showAction,
  column,
  onZoom,
  onDisplayWidth,
}: {
  trajectoryId: number;
  step: PlayerStepData | undefined;
  pending: boolean;
  position: number | null;
  count: number;
  analysis: StepAnalysis | undefined;
  neighbours: (PlayerStepData | undefined)[];
  gap: string | null;
  diverges: boolean;
  showSom: boolean;
  showAction: boolean;
  column: number;
  onZoom: (column: number) => void;
  onDisplayWidth: (trajectoryId: number, width: number, fromStep: number) => void;
}) {
  const zoom = useCallback(() => onZoom(column), [onZoom, column]);
  const variantWidth = useCallback((w: number) => onDisplayWidth(trajectoryId, w, position ?? 0), [onDisplayWidth, trajectoryId, position]);
  // Neighbours are rebuilt each render; their objects are the real dependencies.
  const ahead = useRef(neighbours);
  if (neighbours.some((s, i) => s !== ahead.current[i])) ahead.current = neighbours;
  if (position === null || !step || !analysis) {
    return (
      <div className="flex min-h-0 flex-1 flex-col bg-zinc-100" data-testid="compare-gap">
        <div className="flex h-8 shrink-0 items-center border-b border-zinc-200 bg-zinc-50 px-3 text-[12px] text-zinc-500">
          <span data-testid="compare-step">—</span>
          {diverges && <DivergenceBadge />}
        </div>
        <div className="m-3 grid flex-1 place-items-center rounded-md border-2 border-dashed border-zinc-300 p-4 text-center text-[12.5px] text-zinc-500">
          {gap}
        </div>
      </div>
    );
  }
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="flex h-7 shrink-0 items-center gap-2 border-b border-zinc-200 px-3 text-[12px]">
        <span className="text-zinc-700 tabular-nums" data-testid="compare-step" data-position={position}>
          Step <strong className="text-zinc-900">{position + 1}</strong> of {count}
        </span>
        {diverges && <DivergenceBadge />}
        <Link
          className="ml-auto text-2xs text-indigo-700 hover:underline"
          href={`/trajectories/${trajectoryId}?step=${position + 1}`}
          title="Open this step in the player"
        >
          Open in player
        </Link>
      </div>
      <StepStage
        step={step}
        pending={pending}
        showRaw={false}
        showSom={showSom}
        showAction={showAction}
        analysis={analysis}
        isLast={position === count - 1}
        neighbours={ahead.current}
        onZoom={zoom}
        onVariantWidth={variantWidth}
      />
      <StepBrief step={pending ? null : step} testIdPrefix="compare" className="max-h-32" />
    </div>
  );
});

function DivergenceBadge() {
  return (
    <span
      className="rounded bg-rose-600 px-1.5 py-px text-2xs font-semibold text-white"
      data-testid="divergence-badge"
      title="The attempts first differ here: another page, another action, or one has no step here"
    >
      first difference
    </span>
  );
}
