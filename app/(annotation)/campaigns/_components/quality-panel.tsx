"use client";
/**
 * A campaign page's quality controls (researchers): the assignment strategy, gold mixing rate and warn/block
 * thresholds, the gold items with their answers, marking a trajectory gold or promoting settled ones, and each
 * annotator's accuracy on gold (blocked annotators flagged).
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { ASSIGNMENT_STRATEGIES, ASSIGNMENT_STRATEGY_LABELS, type AssignmentStrategy } from "@/server/domain/annotation/assignment";
import { useTRPC } from "../../../_trpc/client";
import { sayingProblem } from "../../../_lib/say-problem";
import { Options, PageForm, StackedLabel } from "../../../_components/field";
import { DenseTable } from "../../../_components/table";
import { GoldForm } from "./gold-form";

const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(0)}%`);
const optionalShare = (text: string): number | null => (text.trim() === "" ? null : Number(text) / 100);

type GoldView = inferRouterOutputs<AppRouter>["quality"]["gold"];

/** The gold items query and the panel's changes to it: each change reloads the list and the page, or says why it failed. */
function useGoldQuality(campaignId: number) {
  const trpc = useTRPC();
  const router = useRouter();
  const gold = useQuery(trpc.quality.gold.queryOptions({ campaignId }));
  const update = useMutation(trpc.quality.updateSettings.mutationOptions());
  const unmark = useMutation(trpc.quality.unmarkGold.mutationOptions());
  const promote = useMutation(trpc.quality.promoteGold.mutationOptions());
  const [error, setError] = useState("");
  const reload = async () => {
    await gold.refetch();
    router.refresh();
  };
  const run = (f: () => Promise<unknown>) =>
    sayingProblem(setError, async () => {
      await f();
      await reload();
    });
  return { gold, update, unmark, promote, error, setError, run, reload };
}

export function QualityPanel({ campaignId }: { campaignId: number }) {
  const { gold, update, unmark, promote, error, setError, run, reload } = useGoldQuality(campaignId);
  if (gold.isPending) return <section className="panel px-4 py-3 text-[12.5px] text-zinc-500">Loading gold items…</section>;
  if (gold.isError) return <section className="panel px-4 py-3 text-[12.5px] text-rose-700">Could not load gold items: {gold.error.message}</section>;
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3" data-testid="quality-panel">
      <h2 className="section-title">Gold items and assignment</h2>
      <QualitySettingsForm
        settings={gold.data.settings}
        saving={update.isPending}
        onSave={(settings) => void run(() => update.mutateAsync({ campaignId, ...settings }))}
      />
      <GoldItemsTable items={gold.data.items} onRemove={(trajectoryId) => void run(() => unmark.mutateAsync({ campaignId, trajectoryId }))} />
      <GoldForm campaignId={campaignId} schema={gold.data.schema} onMarked={reload} />
      <PromoteGoldForm
        promoting={promote.isPending}
        onPromote={(trajectoryIds) => void run(() => promote.mutateAsync({ campaignId, trajectoryIds }))}
        onInvalid={setError}
      />
      {error && (
        <p className="text-[12px] text-rose-700" role="alert">
          {error}
        </p>
      )}
      <GoldAccuracyTable annotators={gold.data.annotators} />
    </section>
  );
}

type QualitySettings = Omit<Parameters<ReturnType<typeof useGoldQuality>["update"]["mutateAsync"]>[0], "campaignId">;

/** The assignment strategy, gold mixing rate and the warn / block thresholds (percentages in the form, shares stored). */
function QualitySettingsForm({
  settings: s,
  saving,
  onSave,
}: {
  settings: GoldView["settings"];
  saving: boolean;
  onSave: (settings: QualitySettings) => void;
}) {
  const save = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    onSave({
      assignmentStrategy: String(f.get("strategy")) as AssignmentStrategy,
      goldRate: Number(f.get("rate")) / 100,
      goldWarnBelow: optionalShare(String(f.get("warn"))),
      goldBlockBelow: optionalShare(String(f.get("block"))),
      goldMinAnswered: Number(f.get("min")),
    });
  };
  return (
    <form className="flex flex-wrap items-end gap-2" onSubmit={save}>
      <StackedLabel text="Assignment">
        <select name="strategy" defaultValue={s.assignmentStrategy} className="field h-8">
          <Options values={ASSIGNMENT_STRATEGIES} text={(k) => ASSIGNMENT_STRATEGY_LABELS[k]} />
        </select>
      </StackedLabel>
      <StackedLabel text="Gold rate %">
        <PercentInput name="rate" value={s.goldRate} />
      </StackedLabel>
      <StackedLabel text="Warn below %" title="Warn the researcher when accuracy on gold falls below this (empty: never)">
        <PercentInput name="warn" value={s.goldWarnBelow} />
      </StackedLabel>
      <StackedLabel text="Block below %" title="Stop handing trajectories to an annotator below this (empty: never)">
        <PercentInput name="block" value={s.goldBlockBelow} />
      </StackedLabel>
      <StackedLabel text="After" title="Gold answers needed before the thresholds apply">
        <input name="min" type="number" min={1} max={1000} defaultValue={s.goldMinAnswered} className="field w-20" />
      </StackedLabel>
      <button className="btn" type="submit" disabled={saving}>
        Save
      </button>
    </form>
  );
}

/** The campaign's gold items with their known answers, each removable. */
function GoldItemsTable({ items, onRemove }: { items: GoldView["items"]; onRemove: (trajectoryId: number) => void }) {
  return (
    <DenseTable columns={["Item", "Task", "Answer", "From", ""]} testId="gold-items">
      {items.length === 0 && (
        <tr>
          <td colSpan={5} className="py-3 text-center text-zinc-500">
            No gold items yet: mark a trajectory below or from the player (Gold), or promote unanimous / adjudicated ones.
          </td>
        </tr>
      )}
      {items.map((g) => {
        const answered = g.answers ? Object.keys(g.answers).length : 0;
        return (
          <tr key={g.itemId}>
            <td className="tabular-nums">
              #{g.itemNo} <span className="text-zinc-400">(trajectory {g.trajectoryId})</span>
            </td>
            <td className="max-w-72 truncate" title={g.intent}>
              {g.taskId}
            </td>
            <td>
              {g.verdict.replace("_", " ")}
              {g.category ? ` · ${g.category}` : ""}
              {g.firstFailingStep !== null ? ` · from step ${g.firstFailingStep + 1}` : ""}
              {g.answers ? <span className="text-zinc-500">{` · ${answered} answer${answered === 1 ? "" : "s"}`}</span> : null}
            </td>
            <td className="text-zinc-500">{g.source}</td>
            <td>
              <button type="button" className="btn" onClick={() => onRemove(g.trajectoryId)}>
                Remove
              </button>
            </td>
          </tr>
        );
      })}
    </DenseTable>
  );
}

/** Promotes settled trajectories (typed ids) to gold; ids that are not whole numbers are refused before asking. */
function PromoteGoldForm({
  promoting,
  onPromote,
  onInvalid,
}: {
  promoting: boolean;
  onPromote: (ids: number[]) => void;
  onInvalid: (message: string) => void;
}) {
  return (
    <PageForm
      className="flex flex-wrap items-end gap-2"
      aria-label="Promote settled trajectories to gold"
      onSubmit={(form) => {
        const ids = String(new FormData(form).get("ids") ?? "")
          .split(/[\s,]+/)
          .filter(Boolean)
          .map(Number);
        if (ids.some((n) => !Number.isInteger(n) || n < 1)) return onInvalid("Trajectory ids: whole numbers separated by commas or spaces");
        onPromote(ids);
      }}
    >
      <StackedLabel text="Promote unanimous or adjudicated trajectories (ids)">
        <input name="ids" className="field w-72" placeholder="12, 15, 40" required />
      </StackedLabel>
      <button className="btn" type="submit" disabled={promoting}>
        Promote to gold
      </button>
    </PageForm>
  );
}

const GOLD_STATUS: Record<string, string> = {
  blocked: "blocked: gets no more trajectories",
  warn: "below the warning threshold",
  too_few: "too few answers yet",
};

/** Each annotator's accuracy on gold with its 95 % interval, the blocked and warned flagged. */
function GoldAccuracyTable({ annotators }: { annotators: GoldView["annotators"] }) {
  return (
    <table className="table-dense" data-testid="gold-accuracy">
      <thead>
        <tr>
          <th>Annotator</th>
          <th className="text-right">Gold answered</th>
          <th className="text-right">Accuracy</th>
          <th className="text-right">95 % interval</th>
          <th>Status</th>
        </tr>
      </thead>
      <tbody>
        {annotators.length === 0 && (
          <tr>
            <td colSpan={5} className="py-3 text-center text-zinc-500">
              Nobody has answered a gold item yet.
            </td>
          </tr>
        )}
        {annotators.map((a) => (
          <tr key={a.annotatorKey}>
            <td>{a.name}</td>
            <td className="text-right tabular-nums">{a.answered}</td>
            <td className="text-right tabular-nums">
              {pct(a.accuracy.estimate)} ({a.correct}/{a.answered})
            </td>
            <td className="text-right tabular-nums">
              {pct(a.accuracy.low)} – {pct(a.accuracy.high)}
            </td>
            <td className={a.status === "blocked" ? "font-medium text-rose-700" : a.status === "warn" ? "text-amber-700" : "text-zinc-500"}>
              {GOLD_STATUS[a.status] ?? "ok"}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A share typed as a whole percentage (empty when there is none: the threshold is off). */
function PercentInput({ name, value }: { name: string; value: number | null }) {
  return <input name={name} type="number" min={0} max={100} step={1} defaultValue={value === null ? "" : Math.round(value * 100)} className="field w-20" />;
}
