"use client";
/**
 * The trajectory list's filters. Every change rewrites the URL (so a filtered view is a shareable link) and
 * the server renders the new page; the bar shows when that is in flight.
 */
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition, type ComponentProps } from "react";
import {
  activeFilterCount,
  AGREEMENT_FILTERS,
  evaluatorLabel,
  HUMAN_LABEL_FILTERS,
  ITEM_STATE_FILTERS,
  PAGE_SIZES,
  RULE_FILTERS,
  trajectoryListSearch,
  VERDICT_FILTERS,
  type TrajectoryListQuery,
} from "@/server/domain/trajectory-list-query";
import { FilterSelect, PageForm } from "../../_components/field";

export interface FilterOptions {
  taskSets: { id: number; name: string }[];
  runs: { id: number; name: string; model: string | null }[];
  sites: string[];
  models: string[];
  outcomes: string[];
  /** Triage menus: only researchers and admins get them (empty otherwise). */
  categories?: string[];
  evaluators?: { ref: string; name: string; kind: string; k: string; promptVersion: string }[];
}

const OUTCOME_NAMES: Record<string, string> = { step_limit: "step limit", time_limit: "time limit" };
const GRADE_NAMES: Record<string, string> = {
  not_evaluable: "not evaluable",
  none: "none yet",
  no_human: "no human verdict",
  disagree: "humans disagree",
  agree: "humans agree",
};

export function FilterBar({ query, options, triage = false }: { query: TrajectoryListQuery; options: FilterOptions; triage?: boolean }) {
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();
  const go: Go = (patch) => {
    const next = { ...query, ...patch, page: patch.page ?? 1 };
    startTransition(() => router.push(`${pathname}${trajectoryListSearch(next)}`));
  };
  const search = useSearchText(query.q, go);
  const steps = useStepRange(query);
  const active = activeFilterCount(query);

  return (
    <PageForm
      role="search"
      aria-label="Filter trajectories"
      className="flex flex-wrap items-center gap-2"
      onSubmit={() => {
        search.cancelPause();
        go({ q: search.text.trim() || undefined, minSteps: wholeNumber(steps.min), maxSteps: wholeNumber(steps.max) });
      }}
    >
      <input
        type="search"
        name="q"
        aria-label="Search intent and final answer"
        placeholder="Search intent, answer, task id…"
        className="field w-60"
        value={search.text}
        onChange={(e) => search.onText(e.target.value)}
      />
      <TrajectoryFilters query={query} options={options} go={go} />
      <StepRangeInputs query={query} range={steps} go={go} />
      {triage && <TriageFilters query={query} options={options} go={go} />}
      <Select
        label="Per page"
        value={String(query.pageSize)}
        onChange={(v) => go({ pageSize: Number(v) })}
        options={PAGE_SIZES.map((n) => [String(n), `${n} / page`])}
        noEmpty
      />
      {active > 0 && (
        <button
          type="button"
          className="btn"
          onClick={() => {
            search.setText("");
            steps.clear();
            // The chosen evaluator is a column, not a filter: it stays.
            startTransition(() =>
              router.push(`${pathname}${trajectoryListSearch({ sort: query.sort, dir: query.dir, pageSize: query.pageSize, evaluator: query.evaluator })}`),
            );
          }}
        >
          Clear {active} filter{active === 1 ? "" : "s"}
        </button>
      )}
      <span aria-live="polite" className={`text-2xs text-indigo-600 transition-opacity ${pending ? "opacity-100" : "opacity-0"}`}>
        Updating…
      </span>
    </PageForm>
  );
}

/** Applies a change of filters: the URL is rewritten (back to the first page unless the change names one). */
type Go = (patch: Partial<TrajectoryListQuery>) => void;

function wholeNumber(s: string): number | undefined {
  return /^\d+$/.test(s.trim()) ? Number(s.trim()) : undefined;
}

/** The search box's text: applied after a short pause in typing (or at once on Enter), kept in step with the URL. */
function useSearchText(q: string | undefined, go: Go) {
  const [text, setText] = useState(q ?? "");
  // Keep the box in step with the URL when it changes from elsewhere (back button, a link).
  useEffect(() => setText(q ?? ""), [q]);
  const pause = useRef<ReturnType<typeof setTimeout> | null>(null);
  const cancelPause = () => {
    if (pause.current) clearTimeout(pause.current);
  };
  const onText = (v: string) => {
    setText(v);
    cancelPause();
    pause.current = setTimeout(() => go({ q: v.trim() || undefined }), 350);
  };
  useEffect(
    () => () => {
      if (pause.current) clearTimeout(pause.current);
    },
    [],
  );
  return { text, setText, onText, cancelPause };
}

/** The steps range as typed, applied when a box loses focus (or on Enter), kept in step with the URL. */
function useStepRange(query: TrajectoryListQuery) {
  const [min, setMin] = useState(query.minSteps?.toString() ?? "");
  const [max, setMax] = useState(query.maxSteps?.toString() ?? "");
  useEffect(() => setMin(query.minSteps?.toString() ?? ""), [query.minSteps]);
  useEffect(() => setMax(query.maxSteps?.toString() ?? ""), [query.maxSteps]);
  const clear = () => {
    setMin("");
    setMax("");
  };
  return { min, setMin, max, setMax, clear };
}

function StepRangeInputs({ query, range, go }: { query: TrajectoryListQuery; range: ReturnType<typeof useStepRange>; go: Go }) {
  const { min, setMin, max, setMax } = range;
  return (
    <span className="flex items-center gap-1 text-[12px] text-zinc-500">
      Steps
      <StepBoundInput bound="minSteps" text={min} onText={setMin} query={query} go={go} />
      –
      <StepBoundInput bound="maxSteps" text={max} onText={setMax} query={query} go={go} />
    </span>
  );
}

const STEP_BOUNDS = {
  minSteps: { name: "Minimum steps", placeholder: "min" },
  maxSteps: { name: "Maximum steps", placeholder: "max" },
} as const;

/** One end of the step range, as typed: the list follows when the field is left holding another whole number (or none). */
function StepBoundInput(props: { bound: keyof typeof STEP_BOUNDS; text: string; onText: (text: string) => void; query: TrajectoryListQuery; go: Go }) {
  const { bound, text, onText, query, go } = props;
  return (
    <input
      inputMode="numeric"
      aria-label={STEP_BOUNDS[bound].name}
      placeholder={STEP_BOUNDS[bound].placeholder}
      className="field w-14"
      value={text}
      onChange={(e) => onText(e.target.value)}
      onBlur={() => wholeNumber(text) !== query[bound] && go({ [bound]: wholeNumber(text) })}
    />
  );
}

/** What the trajectories are: task set, run, site, model, how they ended, whether they answered. */
function TrajectoryFilters({ query, options, go }: { query: TrajectoryListQuery; options: FilterOptions; go: Go }) {
  return (
    <>
      <Select
        label="Task set"
        value={query.taskSetId?.toString() ?? ""}
        onChange={(v) => go({ taskSetId: v ? Number(v) : undefined })}
        options={options.taskSets.map((s) => [String(s.id), s.name])}
      />
      <Select
        label="Run"
        value={query.runId?.toString() ?? ""}
        onChange={(v) => go({ runId: v ? Number(v) : undefined })}
        options={options.runs.map((r) => [String(r.id), r.model ? `${r.name} · ${r.model}` : r.name])}
      />
      <Select label="Site" value={query.site ?? ""} onChange={(v) => go({ site: v || undefined })} options={options.sites.map((s) => [s, s])} />
      <Select label="Model" value={query.model ?? ""} onChange={(v) => go({ model: v || undefined })} options={options.models.map((m) => [m, m])} />
      <Select
        label="Outcome"
        value={query.outcome ?? ""}
        onChange={(v) => go({ outcome: v || undefined })}
        options={options.outcomes.map((o) => [o, OUTCOME_NAMES[o] ?? o])}
      />
      <Select
        label="Final answer"
        value={query.hasAnswer === undefined ? "" : query.hasAnswer ? "yes" : "no"}
        onChange={(v) => go({ hasAnswer: v === "" ? undefined : v === "yes" })}
        options={[
          ["yes", "has answer"],
          ["no", "no answer"],
        ]}
      />
    </>
  );
}

/** What people and evaluators said (researchers' triage): human label, item state, category, rule, one evaluator's verdict. */
function TriageFilters({ query, options, go }: { query: TrajectoryListQuery; options: FilterOptions; go: Go }) {
  const evaluator = options.evaluators?.find((e) => e.ref === query.evaluator);
  return (
    <>
      <GradeSelect label="Human label" filter="human" values={HUMAN_LABEL_FILTERS} query={query} go={go} />
      <GradeSelect label="Item state" filter="state" values={ITEM_STATE_FILTERS} query={query} go={go} />
      {!!options.categories?.length && (
        <Select
          label="Category"
          value={query.category ?? ""}
          onChange={(v) => go({ category: v || undefined })}
          options={options.categories.map((c) => [c, c])}
        />
      )}
      <GradeSelect label="Rule" filter="rule" values={RULE_FILTERS} query={query} go={go} />
      <Select
        label="Evaluator"
        emptyText="Evaluator: none"
        value={query.evaluator ?? ""}
        // A verdict or agreement is about one evaluator: they go when it changes, and so does a sort by it.
        onChange={(v) =>
          go({ evaluator: v || undefined, verdict: undefined, agreement: undefined, ...(query.sort === "verdict" ? { sort: "id" as const } : {}) })
        }
        options={(options.evaluators ?? []).map((e) => [e.ref, evaluatorLabel(e)])}
        wide
      />
      {evaluator && (
        <>
          <GradeSelect label="Verdict" filter="verdict" values={VERDICT_FILTERS} query={query} go={go} />
          <GradeSelect label="Agreement" filter="agreement" values={AGREEMENT_FILTERS} query={query} go={go} />
        </>
      )}
    </>
  );
}

/** A filter of the bar; `noEmpty` for a choice that is never "all" (nor tinted), `wide` for long names. */
function Select({
  label,
  noEmpty,
  emptyText,
  wide,
  ...select
}: Omit<ComponentProps<typeof FilterSelect>, "empty" | "width" | "highlight"> & { noEmpty?: boolean; emptyText?: string; wide?: boolean }) {
  return (
    <FilterSelect
      label={label}
      empty={noEmpty ? undefined : (emptyText ?? `${label}: all`)}
      highlight={!!select.value && !noEmpty}
      width={wide ? "wide" : "narrow"}
      {...select}
    />
  );
}

type GradeFilter = "human" | "state" | "rule" | "verdict" | "agreement";

/** A filter on a grade (human label, item state, rule, an evaluator's verdict, agreement), its values in words. */
function GradeSelect<F extends GradeFilter>(props: {
  label: string;
  filter: F;
  values: readonly NonNullable<TrajectoryListQuery[F]>[];
  query: TrajectoryListQuery;
  go: Go;
}) {
  const { label, filter, values, query, go } = props;
  return (
    <Select
      label={label}
      value={query[filter] ?? ""}
      onChange={(v) => go({ [filter]: v || undefined } as Partial<TrajectoryListQuery>)}
      options={values.map((v) => [v, GRADE_NAMES[v] ?? v])}
    />
  );
}
