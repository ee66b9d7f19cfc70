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
  const [text, setText] = useState(query.q ?? "");
  const [minSteps, setMinSteps] = useState(query.minSteps?.toString() ?? "");
  const [maxSteps, setMaxSteps] = useState(query.maxSteps?.toString() ?? "");

  // Keep inputs in step with the URL when it changes from elsewhere (back button, a link).
  useEffect(() => setText(query.q ?? ""), [query.q]);
  useEffect(() => setMinSteps(query.minSteps?.toString() ?? ""), [query.minSteps]);
  useEffect(() => setMaxSteps(query.maxSteps?.toString() ?? ""), [query.maxSteps]);

  const go = (patch: Partial<TrajectoryListQuery>) => {
    const next = { ...query, ...patch, page: patch.page ?? 1 };
    startTransition(() => router.push(`${pathname}${trajectoryListSearch(next)}`));
  };

  // Free text applies after a short pause in typing, or at once on Enter.
  const debounce = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onText = (v: string) => {
    setText(v);
    if (debounce.current) clearTimeout(debounce.current);
    debounce.current = setTimeout(() => go({ q: v.trim() || undefined }), 350);
  };
  useEffect(
    () => () => {
      if (debounce.current) clearTimeout(debounce.current);
    },
    [],
  );

  const num = (s: string) => (/^\d+$/.test(s.trim()) ? Number(s.trim()) : undefined);
  const active = activeFilterCount(query);
  const evaluator = options.evaluators?.find((e) => e.ref === query.evaluator);

  return (
    <form
      role="search"
      aria-label="Filter trajectories"
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (debounce.current) clearTimeout(debounce.current);
        go({ q: text.trim() || undefined, minSteps: num(minSteps), maxSteps: num(maxSteps) });
      }}
    >
      <input
        type="search"
        name="q"
        aria-label="Search intent and final answer"
        placeholder="Search intent, answer, task id…"
        className="field w-60"
        value={text}
        onChange={(e) => onText(e.target.value)}
      />
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
      <span className="flex items-center gap-1 text-[12px] text-zinc-500">
        Steps
        <input
          inputMode="numeric"
          aria-label="Minimum steps"
          placeholder="min"
          className="field w-14"
          value={minSteps}
          onChange={(e) => setMinSteps(e.target.value)}
          onBlur={() => num(minSteps) !== query.minSteps && go({ minSteps: num(minSteps) })}
        />
        –
        <input
          inputMode="numeric"
          aria-label="Maximum steps"
          placeholder="max"
          className="field w-14"
          value={maxSteps}
          onChange={(e) => setMaxSteps(e.target.value)}
          onBlur={() => num(maxSteps) !== query.maxSteps && go({ maxSteps: num(maxSteps) })}
        />
      </span>
      {triage && (
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
      )}
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
            setText("");
            setMinSteps("");
            setMaxSteps("");
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
    </form>
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
