"use client";
/**
 * The trajectory list's filters. Every change rewrites the URL (so a filtered view is a shareable link) and
 * the server renders the new page; the bar shows when that is in flight.
 */
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
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
import { PageForm } from "../../_components/field";

export interface FilterOptions {
  taskSets: { id: number; name: string }[];
  runs: { id: number; name: string; model: string | null }[];
  sites: string[];
  models: string[];
  outcomes: string[];
  /** Triage menus: only researchers and admins get them (empty otherwise). */
  categories?: string[];
  evaluators?: { ref: string; name: string; kind: string; k: string; promptVersion: string; total: number }[];
}

const OUTCOME_NAMES: Record<string, string> = { step_limit: "step limit", time_limit: "time limit" };
const GRADE_NAMES: Record<string, string> = {
  not_evaluable: "not evaluable",
  none: "none yet",
  no_human: "no human verdict",
  disagree: "humans disagree",
  agree: "humans agree",
};
const gradeOptions = (values: readonly string[]): [string, string][] => values.map((v) => [v, GRADE_NAMES[v] ?? v]);

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
      <input
        inputMode="numeric"
        aria-label="Minimum steps"
        placeholder="min"
        className="field w-14"
        value={min}
        onChange={(e) => setMin(e.target.value)}
        onBlur={() => wholeNumber(min) !== query.minSteps && go({ minSteps: wholeNumber(min) })}
      />
      –
      <input
        inputMode="numeric"
        aria-label="Maximum steps"
        placeholder="max"
        className="field w-14"
        value={max}
        onChange={(e) => setMax(e.target.value)}
        onBlur={() => wholeNumber(max) !== query.maxSteps && go({ maxSteps: wholeNumber(max) })}
      />
    </span>
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
      <Select
        label="Human label"
        value={query.human ?? ""}
        onChange={(v) => go({ human: (v || undefined) as TrajectoryListQuery["human"] })}
        options={gradeOptions(HUMAN_LABEL_FILTERS)}
      />
      <Select
        label="Item state"
        value={query.state ?? ""}
        onChange={(v) => go({ state: (v || undefined) as TrajectoryListQuery["state"] })}
        options={gradeOptions(ITEM_STATE_FILTERS)}
      />
      {!!options.categories?.length && (
        <Select
          label="Category"
          value={query.category ?? ""}
          onChange={(v) => go({ category: v || undefined })}
          options={options.categories.map((c) => [c, c])}
        />
      )}
      <Select
        label="Rule"
        value={query.rule ?? ""}
        onChange={(v) => go({ rule: (v || undefined) as TrajectoryListQuery["rule"] })}
        options={gradeOptions(RULE_FILTERS)}
      />
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
          <Select
            label="Verdict"
            value={query.verdict ?? ""}
            onChange={(v) => go({ verdict: (v || undefined) as TrajectoryListQuery["verdict"] })}
            options={gradeOptions(VERDICT_FILTERS)}
          />
          <Select
            label="Agreement"
            value={query.agreement ?? ""}
            onChange={(v) => go({ agreement: (v || undefined) as TrajectoryListQuery["agreement"] })}
            options={gradeOptions(AGREEMENT_FILTERS)}
          />
        </>
      )}
    </>
  );
}

function Select({
  label,
  value,
  onChange,
  options,
  noEmpty,
  emptyText,
  wide,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: [string, string][];
  noEmpty?: boolean;
  emptyText?: string;
  wide?: boolean;
}) {
  return (
    <select
      aria-label={label}
      className={`field ${wide ? "max-w-64" : "max-w-48"} ${value && !noEmpty ? "border-indigo-300 bg-indigo-50/50" : ""}`}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    >
      {!noEmpty && <option value="">{emptyText ?? `${label}: all`}</option>}
      {options.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </select>
  );
}
