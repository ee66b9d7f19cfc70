"use client";
/**
 * The pairwise labelling page: two attempts at one task side by side, each with its step's screenshot (with the
 * player's Set-of-Marks overlay), action and thought, stepping together with the player's keys; the annotator
 * answers 1 left better, 2 right better, 3 tie, 4 both fail (server/domain/annotation/pairwise-keys.ts) and
 * Ctrl/Cmd+Enter submits and opens the next pair.
 *
 * The blind: the sides come from the pairwise procedures with the agent, run and trajectory taken out; this page
 * names them only "left" and "right" (what the server turns into the pair's A/B is never sent here).
 */
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { PAIRWISE_ANSWER_KEYS, PAIRWISE_SHORTCUTS, pairwiseCommandForKey, type PairwiseStepCommand } from "@/server/domain/annotation/pairwise-keys";
import type { PairwiseChoice } from "@/server/domain/annotation/pairwise-pairs";
import { fromJsonText, unpackStepIndex } from "@/server/domain/player/paging";
import { GuidelinesDialog } from "../../../_components/guidelines";
import { ShortcutsHelp } from "../../../_components/shortcuts-help";
import { useTRPC } from "../../../_trpc/client";
import type { PlayerStepData, StepWindowData } from "../../../trajectories/[id]/_components/player";
import { groundingOf } from "../../../trajectories/[id]/_components/step-grounding";
import { StepBrief } from "../../../trajectories/[id]/_components/step-details";
import { StepStage } from "../../../trajectories/[id]/_components/step-stage";
import { stepOrPlaceholder, useStepWindows } from "../../../trajectories/[id]/_components/step-windows";
import { useViewSwitches } from "../../../trajectories/[id]/_components/view-switches";
import { ZoomView } from "../../../trajectories/[id]/_components/zoom-view";

type Side = inferRouterOutputs<AppRouter>["pairwise"]["item"]["left"];
type SideName = "left" | "right";
const SIDES: SideName[] = ["left", "right"];

const CHOICE_STYLE: Record<PairwiseChoice, string> = {
  left: "border-indigo-500 bg-indigo-50 text-indigo-900",
  right: "border-indigo-500 bg-indigo-50 text-indigo-900",
  tie: "border-zinc-500 bg-zinc-100 text-zinc-900",
  both_fail: "border-rose-500 bg-rose-50 text-rose-900",
};

function clamp(i: number, n: number): number {
  return Math.max(0, Math.min(Math.max(0, n - 1), i));
}

export function PairwiseWorkspace({ campaignId, itemNo }: { campaignId: number; itemNo: number }) {
  const trpc = useTRPC();
  const { data: pair } = useSuspenseQuery(trpc.pairwise.item.queryOptions({ campaignId, itemNo }));
  const { data: campaign } = useSuspenseQuery(trpc.pairwise.campaign.queryOptions({ campaignId }));
  const [choice, setChoice] = useState<PairwiseChoice | null>(pair.myAnswer?.choice ?? null);
  const [error, setError] = useState("");
  const { showSom, showAction, help, setHelp, flip } = useViewSwitches();
  const [guidelines, setGuidelines] = useState(false);
  const [zoom, setZoom] = useState<{ side: SideName; step: PlayerStepData; position: number; count: number } | null>(null);
  // One step number for both sides, each showing its own last step once it has ended.
  const [current, setCurrent] = useState(0);
  const longest = Math.max(pair.left.stepCount, pair.right.stepCount);
  const { send, busy } = useSubmitAndNext(campaignId, itemNo, choice, setError);

  const step = useCallback(
    (command: PairwiseStepCommand) => {
      switch (command) {
        case "prev":
          setCurrent((c) => clamp(c - 1, longest));
          break;
        case "next":
          setCurrent((c) => clamp(c + 1, longest));
          break;
        case "first":
          setCurrent(0);
          break;
        case "last":
          setCurrent(Math.max(0, longest - 1));
          break;
        case "toggleOverlay":
        case "toggleAction":
        case "toggleHelp":
          flip(command);
          break;
        case "close":
          setHelp(false);
          setGuidelines(false);
          setZoom(null);
          break;
      }
    },
    [longest, flip, setHelp],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const cmd = pairwiseCommandForKey(e, e.target as HTMLElement | null);
      if (!cmd) return;
      // With help open, only closing it does anything.
      if (help && !(cmd.kind === "player" && (cmd.command === "toggleHelp" || cmd.command === "close"))) return;
      e.preventDefault();
      if (cmd.kind === "choose") {
        setChoice(cmd.choice);
        setError("");
      } else if (cmd.kind === "submitAndNext") void send();
      else if (cmd.kind === "guidelines") setGuidelines((v) => !v);
      else step(cmd.command);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [help, send, step]);

  return (
    <div className="flex min-h-0 flex-col lg:h-[calc(100dvh-2.75rem)]" data-testid="pairwise-workspace">
      <PairHeader
        name={campaign.name}
        itemNo={itemNo}
        answered={campaign.answered}
        items={campaign.items}
        task={pair.left.task}
        hasGuidelines={!!campaign.instructions}
        guidelines={guidelines}
        onGuidelines={() => setGuidelines((v) => !v)}
        onHelp={() => setHelp(true)}
      />

      <div className="grid min-h-0 flex-1 grid-cols-1 gap-px bg-zinc-200 lg:grid-cols-2">
        {SIDES.map((name) => (
          <AttemptColumn
            key={name}
            name={name}
            side={pair[name]}
            campaignId={campaignId}
            itemNo={itemNo}
            current={current}
            showSom={showSom}
            showAction={showAction}
            chosen={choice}
            onStep={setCurrent}
            onZoom={setZoom}
          />
        ))}
      </div>

      <AnswerBar
        choice={choice}
        onChoose={(c) => {
          setChoice(c);
          setError("");
        }}
        revision={pair.myAnswer?.revision ?? null}
        error={error}
        busy={busy}
        onSubmit={() => void send()}
      />

      {guidelines && campaign.instructions && <GuidelinesDialog text={campaign.instructions} onClose={() => setGuidelines(false)} />}
      {zoom && (
        <ZoomView
          step={zoom.step}
          showRaw={false}
          showSom={showSom}
          showAction={showAction}
          position={zoom.position}
          count={zoom.count}
          onClose={() => setZoom(null)}
        />
      )}
      {help && (
        <ShortcutsHelp
          shortcuts={PAIRWISE_SHORTCUTS}
          footnote="Shortcuts are ignored while you type in a text field. Both attempts step together; an attempt that has ended stays on its last step."
          onClose={() => setHelp(false)}
        />
      )}
    </div>
  );
}

/** Submits the chosen answer (with the time spent on the pair), then opens the next pair, or the queue's done state. */
function useSubmitAndNext(campaignId: number, itemNo: number, choice: PairwiseChoice | null, setError: (e: string) => void) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const submit = useMutation(trpc.pairwise.submit.mutationOptions());
  const next = useMutation(trpc.pairwise.next.mutationOptions());
  const openedAt = useRef(0);
  useEffect(() => {
    openedAt.current = Date.now();
  }, []);
  const busy = submit.isPending || next.isPending;
  const send = useCallback(async () => {
    if (busy) return;
    if (!choice) {
      setError("Choose an answer first: 1 left is better, 2 right is better, 3 tie, 4 both fail.");
      return;
    }
    setError("");
    try {
      await submit.mutateAsync({ campaignId, itemNo, choice, timeSpentMs: Math.max(0, Date.now() - openedAt.current) });
      await queryClient.invalidateQueries({ queryKey: trpc.pairwise.campaign.queryKey({ campaignId }) });
      const n = await next.mutateAsync({ campaignId });
      router.push(n ? `/annotate/${campaignId}/${n.itemNo}` : `/annotate/${campaignId}`);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [busy, choice, submit, next, queryClient, trpc, campaignId, itemNo, router, setError]);
  return { send, busy };
}

/** One attempt: its step (screenshot with marks, action, thought), its own step buttons, and its final answer at the end. */
function AttemptColumn({
  name,
  side,
  campaignId,
  itemNo,
  current,
  showSom,
  showAction,
  chosen,
  onStep,
  onZoom,
}: {
  name: SideName;
  side: Side;
  campaignId: number;
  itemNo: number;
  current: number;
  showSom: boolean;
  showAction: boolean;
  chosen: PairwiseChoice | null;
  onStep: (i: number) => void;
  onZoom: (z: { side: SideName; step: PlayerStepData; position: number; count: number }) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const index = useMemo(() => unpackStepIndex(fromJsonText(side.index)), [side.index]);
  const n = index.length;
  const position = clamp(current, n);
  const loadWindow = useCallback(
    (from: number): Promise<StepWindowData> =>
      queryClient.fetchQuery({ ...trpc.pairwise.steps.queryOptions({ campaignId, itemNo, side: name, from }), staleTime: Infinity }),
    [queryClient, trpc, campaignId, itemNo, name],
  );
  const { stepAt, windowError } = useStepWindows(side.window, index, position, loadWindow);
  const loaded = stepAt(position);
  const entry = index[position];
  const shown = stepOrPlaceholder(loaded, entry);
  const neighbours = [position + 1, position - 1].map((i) => stepAt(i));
  const title = name === "left" ? "Left attempt" : "Right attempt";
  const picked = chosen === name;
  const ended = n > 0 && current > n - 1;
  return (
    <section
      aria-label={title}
      className={`flex min-h-[420px] min-w-0 flex-col bg-white ${picked ? "ring-2 ring-indigo-400 ring-inset" : ""}`}
      data-testid={`pairwise-${name}`}
    >
      <div className="flex h-8 shrink-0 items-center gap-2 border-b border-zinc-200 px-3 text-[12px]">
        <strong className="text-zinc-900">{title}</strong>
        <span className="text-zinc-600 tabular-nums" data-testid={`pairwise-${name}-step`}>
          {n ? (
            <>
              Step <strong className="text-zinc-900">{position + 1}</strong> of {n}
              {ended && <span className="ml-1 text-zinc-500">(ended)</span>}
            </>
          ) : (
            "No steps"
          )}
        </span>
        <span className="ml-auto flex gap-1">
          <button type="button" className="btn h-6 px-2" aria-label={`${title}: previous step`} disabled={position === 0} onClick={() => onStep(position - 1)}>
            ‹
          </button>
          <button type="button" className="btn h-6 px-2" aria-label={`${title}: next step`} disabled={position >= n - 1} onClick={() => onStep(position + 1)}>
            ›
          </button>
        </span>
      </div>
      {shown && entry ? (
        <>
          <StepStage
            step={shown}
            pending={!loaded}
            showRaw={false}
            showSom={showSom}
            showAction={showAction}
            analysis={{ loops: entry.loops, grounding: loaded ? groundingOf(loaded) : null }}
            isLast={position === n - 1}
            neighbours={neighbours}
            onZoom={() => onZoom({ side: name, step: shown, position: position + 1, count: n })}
          />
          <StepBrief step={loaded ?? null} loadError={windowError} testIdPrefix={`pairwise-${name}`} className="max-h-28">
            {position === n - 1 && (
              <p className="mt-1.5 rounded-md bg-zinc-50 px-2 py-1 text-zinc-800" data-testid={`pairwise-${name}-answer`}>
                <span className="font-medium">Final answer:</span> {side.trajectory.finalAnswer || <span className="text-zinc-400">none given</span>}
              </p>
            )}
          </StepBrief>
        </>
      ) : (
        <div className="grid flex-1 place-items-center p-8 text-zinc-500">This attempt has no steps.</div>
      )}
    </section>
  );
}

/** The pair's heading: the campaign, the pair's number, the annotator's progress, the task, and the help and guidelines buttons. */
function PairHeader({
  name,
  itemNo,
  answered,
  items,
  task,
  hasGuidelines,
  guidelines,
  onGuidelines,
  onHelp,
}: {
  name: string;
  itemNo: number;
  answered: number;
  items: number;
  task: Side["task"];
  hasGuidelines: boolean;
  guidelines: boolean;
  onGuidelines: () => void;
  onHelp: () => void;
}) {
  const pct = items ? Math.min(100, (100 * answered) / items) : 0;
  return (
    <header className="flex shrink-0 flex-wrap items-center gap-x-4 gap-y-1 border-b border-zinc-200 bg-white px-4 py-2">
      <Link className="text-[12px] text-zinc-500 hover:text-zinc-800 hover:underline" href="/annotate">
        ← Annotate
      </Link>
      <h1 className="text-[14px] font-semibold text-zinc-900">{name}</h1>
      <span className="text-[12px] text-zinc-600 tabular-nums" data-testid="pairwise-item">
        Pair {itemNo}
      </span>
      <div className="flex items-center gap-2" data-testid="pairwise-progress" title="Pairs you have answered in this campaign">
        <div className="h-1.5 w-32 overflow-hidden rounded-full bg-zinc-100">
          <div className="h-full bg-indigo-500" style={{ width: `${pct}%` }} />
        </div>
        <span className="text-[12px] text-zinc-600 tabular-nums">
          {answered} of {items} answered
        </span>
      </div>
      <div className="ml-auto flex items-center gap-2">
        {hasGuidelines && (
          <button type="button" className="btn h-7 text-[12px]" aria-expanded={guidelines} onClick={onGuidelines}>
            Guidelines <kbd className="kbd">g</kbd>
          </button>
        )}
        <button type="button" className="btn h-7 text-[12px]" onClick={onHelp}>
          Keys <kbd className="kbd">?</kbd>
        </button>
      </div>
      <p className="w-full truncate text-[13px] text-zinc-800" title={task.intent} data-testid="pairwise-task">
        <span className="mr-1.5 text-2xs font-semibold tracking-wide text-zinc-500 uppercase">Task</span>
        {task.intent}
        {task.startUrl && <span className="ml-2 font-mono text-[11.5px] text-zinc-500">{task.startUrl}</span>}
      </p>
    </header>
  );
}

/** The four answers (keys 1–4), the annotator's earlier answer, an error beside them, and submit. */
function AnswerBar({
  choice,
  onChoose,
  revision,
  error,
  busy,
  onSubmit,
}: {
  choice: PairwiseChoice | null;
  onChoose: (c: PairwiseChoice) => void;
  revision: number | null;
  error: string;
  busy: boolean;
  onSubmit: () => void;
}) {
  return (
    <footer className="flex shrink-0 flex-wrap items-center gap-2 border-t border-zinc-200 bg-white px-4 py-2" data-testid="pairwise-answer">
      <span className="text-[12.5px] font-medium text-zinc-700">Which attempt is better?</span>
      <div className="flex flex-wrap gap-2" role="radiogroup" aria-label="Your answer">
        {PAIRWISE_ANSWER_KEYS.map((a) => (
          <button
            key={a.choice}
            type="button"
            role="radio"
            aria-checked={choice === a.choice}
            className={`btn h-8 text-[12.5px] ${choice === a.choice ? CHOICE_STYLE[a.choice] : ""}`}
            onClick={() => onChoose(a.choice)}
          >
            <kbd className="kbd">{a.key}</kbd> {a.label}
          </button>
        ))}
      </div>
      {revision !== null && (
        <span className="text-[12px] text-indigo-800" data-testid="pairwise-mine">
          You answered this pair (revision {revision}); submitting again records a revision.
        </span>
      )}
      {error && (
        <span role="alert" className="text-[12.5px] text-rose-700">
          {error}
        </span>
      )}
      <button type="button" className="btn btn-on ml-auto h-8" disabled={busy} onClick={onSubmit} data-testid="pairwise-submit">
        {busy ? "Saving…" : "Submit and next"} <kbd className="kbd">Ctrl ↵</kbd>
      </button>
    </footer>
  );
}
