"use client";
/**
 * Filters of the analytics views: scope (task set, run, site), the campaign whose labels are the human reference and
 * which reference (consolidated, majority, one annotator), how unparseable judge replies count, the difficulty
 * dimension, and what to split the view by (site, run, difficulty, any task attribute). Every change rewrites the URL.
 */
import { usePathname, useRouter } from "next/navigation";
import { useTransition, type ComponentProps } from "react";
import { formatReferenceSpec, parseReferenceSpec } from "@/server/domain/analytics/reference";
import { analyticsSearch, NO_SITE, type AnalyticsParams } from "../_lib/search";
import { FilterSelect } from "../../_components/field";
import { FlaggedNote, type FlaggedCount } from "./flagged-note";

export interface AnalyticsOptions {
  taskSets: { id: number; name: string }[];
  runs: { id: number; name: string; model: string | null }[];
  sites: string[];
  hasTrajectoriesWithoutSite: boolean;
  campaigns: { id: number; name: string; items: number }[];
  splitKeys: { key: string; label: string; values: number }[];
  annotators: { key: string; name: string; campaigns: number[] }[];
}

/** A filter of the bar, inside a label (all choices when `allLabel` is given). */
function Select({ label, allLabel, ...select }: Omit<ComponentProps<typeof FilterSelect>, "empty" | "width"> & { allLabel?: string }) {
  return (
    <label className="flex items-center gap-1 text-[12px] text-zinc-500">
      <span className="sr-only">{label}</span>
      <FilterSelect label={label} empty={allLabel} width="medium" {...select} />
    </label>
  );
}

export function AnalyticsFilterBar({
  params,
  options,
  show = {},
  keep = {},
  flagged,
}: {
  params: AnalyticsParams;
  options: AnalyticsOptions;
  show?: { campaign?: boolean; unparseable?: boolean; difficulty?: boolean; reference?: boolean; by?: boolean };
  keep?: Record<string, string | undefined>;
  /** What the view left out for the validity ledger: shown under the filters with its toggle. */
  flagged?: FlaggedCount;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();
  const go = (patch: Partial<AnalyticsParams>) => startTransition(() => router.push(`${pathname}${analyticsSearch({ ...params, ...patch }, keep)}`));
  const siteOptions: [string, string][] = options.sites.map((s) => [s, s]);
  if (options.hasTrajectoriesWithoutSite) siteOptions.push([NO_SITE, "(no site)"]);
  const scoped = params.taskSetId !== undefined || params.runId !== undefined || params.site !== undefined;
  return (
    <div role="search" aria-label="Analytics filters" className="flex flex-wrap items-center gap-2">
      <Select
        label="Task set"
        value={params.taskSetId?.toString() ?? ""}
        allLabel="All task sets"
        onChange={(v) => go({ taskSetId: v ? Number(v) : undefined })}
        options={options.taskSets.map((s) => [String(s.id), s.name])}
      />
      <Select
        label="Agent run"
        value={params.runId?.toString() ?? ""}
        allLabel="All runs"
        onChange={(v) => go({ runId: v ? Number(v) : undefined })}
        options={options.runs.map((r) => [String(r.id), r.model ? `${r.name} · ${r.model}` : r.name])}
      />
      <Select
        label="Site"
        value={params.site === null ? NO_SITE : (params.site ?? "")}
        allLabel="All sites"
        onChange={(v) => go({ site: v === "" ? undefined : v === NO_SITE ? null : v })}
        options={siteOptions}
      />
      {show.campaign && (
        <Select
          label="Human reference"
          value={params.campaignId?.toString() ?? ""}
          allLabel="Human label: latest"
          onChange={(v) => go({ campaignId: v ? Number(v) : undefined })}
          options={options.campaigns.map((c) => [String(c.id), `Human label: ${c.name}`])}
        />
      )}
      {show.reference && (
        <Select
          label="Against"
          value={params.reference ? formatReferenceSpec(params.reference) : "consolidated"}
          onChange={(v) => go({ reference: v === "consolidated" ? undefined : parseReferenceSpec(v) })}
          options={[
            ["consolidated", "Against: consolidated label"],
            ["majority", "Against: majority of annotators"],
            // Annotators of the chosen campaign (of any, with none chosen), and the one in use in any case.
            ...options.annotators
              .filter(
                (a) =>
                  params.campaignId === undefined ||
                  a.campaigns.includes(params.campaignId) ||
                  (params.reference?.kind === "annotator" && params.reference.annotator === a.key),
              )
              .map((a): [string, string] => [`annotator:${a.key}`, `Against: ${a.name}`]),
          ]}
        />
      )}
      {show.unparseable && (
        <Select
          label="Unparseable replies"
          value={params.unparseable}
          onChange={(v) => go({ unparseable: v === "failure" ? "failure" : "exclude" })}
          options={[
            ["exclude", "Unparseable: left out"],
            ["failure", "Unparseable: count as failure"],
          ]}
        />
      )}
      {show.difficulty && (
        <Select
          label="Difficulty"
          value={params.difficulty}
          onChange={(v) => go({ difficulty: v as AnalyticsParams["difficulty"] })}
          options={[
            ["overall", "Difficulty: overall"],
            ["reasoning", "Difficulty: reasoning"],
            ["visual", "Difficulty: visual"],
          ]}
        />
      )}
      {show.by && (
        <Select
          label="Split by"
          value={params.by ?? ""}
          allLabel="No split"
          onChange={(v) => go({ by: v || undefined })}
          // A key with a single value splits nothing; one with hundreds is an identifier, not a group.
          options={options.splitKeys
            .filter((k) => (k.values > 1 && k.values <= 200) || k.key === params.by)
            .map((k): [string, string] => [k.key, `Split by ${k.label} (${k.values})`])}
        />
      )}
      {scoped && (
        <button type="button" className="btn" onClick={() => go({ taskSetId: undefined, runId: undefined, site: undefined })}>
          Clear scope
        </button>
      )}
      <span aria-live="polite" className={`text-2xs text-indigo-600 transition-opacity ${pending ? "opacity-100" : "opacity-0"}`}>
        Updating…
      </span>
      {flagged && (
        <div className="basis-full">
          <FlaggedNote flagged={flagged} />
        </div>
      )}
    </div>
  );
}
