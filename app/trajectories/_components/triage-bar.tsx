"use client";
/**
 * The triage bar above the list (researchers and admins): what is selected, "select all N matching", a seeded
 * random sample of the selection (or of the filter when nothing is selected), and a campaign from the selection or
 * the sample. Nothing travels as a long id list: a sample is the filter plus its size and seed, redrawn on the
 * server; hand-picked rows travel as compact id ranges (at most MAX_IDS). Two to four hand-picked attempts at one
 * task open side by side.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { MAX_IDS, MAX_SAMPLE, MAX_SEED, SAMPLE_STRATA, trajectoryListSearch, type TrajectoryListQuery } from "@/server/domain/trajectory-list-query";
import { formatCount, LinkButtons } from "../../_components/ui";

export type Selection = { kind: "ids"; ids: Set<number> } | { kind: "all" };

type Filter = Omit<TrajectoryListQuery, "sort" | "dir" | "page" | "pageSize">;

function newSeed(): number {
  return Math.floor(Math.random() * 1_000_000);
}

export function TriageBar({
  query,
  total,
  selection,
  allOnPage,
  onSelectAllMatching,
  onClear,
  onHelp,
  compare,
}: {
  query: TrajectoryListQuery;
  total: number;
  selection: Selection;
  allOnPage: boolean;
  onSelectAllMatching: () => void;
  onClear: () => void;
  onHelp: () => void;
  /** 2–4 hand-picked rows: where "Compare selected" leads, or why it cannot (rows of several tasks). */
  compare?: { href: string; problem: string | null } | null;
}) {
  const router = useRouter();
  const { sort: _s, dir: _d, page: _p, pageSize: _z, ...filter } = query;
  const { sample: _sample, seed: _seed, strata: _strata, ...plain } = filter;
  const [size, setSize] = useState(String(query.sample ?? Math.min(50, Math.max(1, total))));
  // The seed is drawn in the browser after the first render (a random value during server rendering would not match).
  const [seed, setSeed] = useState(query.seed !== undefined ? String(query.seed) : "");
  const [strata, setStrata] = useState<string>(query.strata ?? "");
  useEffect(() => {
    if (query.seed !== undefined) setSeed(String(query.seed));
    else setSeed((s) => s || String(newSeed()));
  }, [query.seed]);

  const picked = selection.kind === "ids" ? [...selection.ids].sort((a, b) => a - b) : [];
  const hasSelection = selection.kind === "all" || picked.length > 0;
  const tooMany = picked.length > MAX_IDS;
  const selectedCount = selection.kind === "all" ? total : picked.length;
  // What the selection is, as a filter: every row matching the view, or the hand-picked rows.
  const selectionFilter: Filter = selection.kind === "all" ? filter : { ...plain, ids: picked };

  const sizeNumber = /^\d+$/.test(size) ? Number(size) : NaN;
  const seedNumber = /^\d+$/.test(seed) ? Number(seed) : NaN;
  const sampleProblem = !(sizeNumber >= 1 && sizeNumber <= MAX_SAMPLE)
    ? `Sample size: a whole number from 1 to ${MAX_SAMPLE}`
    : !(seedNumber >= 0 && seedNumber <= MAX_SEED)
      ? `Seed: a whole number from 0 to ${MAX_SEED}`
      : null;

  const drawSample = () => {
    if (sampleProblem || tooMany) return;
    // A sample of the hand-picked rows, or else of everything the filters select (a previous sample is redrawn).
    const from: Filter = picked.length ? { ...plain, ids: picked } : plain;
    router.push(
      `/trajectories${trajectoryListSearch({ ...from, sample: sizeNumber, seed: seedNumber, strata: strata ? (strata as "run" | "site") : undefined })}`,
    );
  };

  const campaignFilter: Filter | null = hasSelection ? selectionFilter : query.sample !== undefined ? filter : null;
  const campaignText = hasSelection ? `New campaign from selection (${formatCount(selectedCount)})` : "New campaign from this sample";

  return (
    <div
      className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded-md border border-zinc-200 bg-zinc-50 px-3 py-1.5 text-[12.5px]"
      data-testid="triage-bar"
      role="group"
      aria-label="Selection and sampling"
    >
      <SelectionStatus
        all={selection.kind === "all"}
        picked={picked.length}
        total={total}
        offerAllMatching={selection.kind === "ids" && allOnPage}
        onSelectAllMatching={onSelectAllMatching}
        onClear={hasSelection ? onClear : null}
      />
      <form
        className="flex flex-wrap items-center gap-1.5"
        aria-label="Random sample"
        onSubmit={(e) => {
          e.preventDefault();
          drawSample();
        }}
      >
        <label className="flex items-center gap-1">
          Sample
          <input className="field w-16" inputMode="numeric" aria-label="Sample size" value={size} onChange={(e) => setSize(e.target.value.trim())} />
        </label>
        <label className="flex items-center gap-1">
          seed
          <input className="field w-24 font-mono" inputMode="numeric" aria-label="Seed" value={seed} onChange={(e) => setSeed(e.target.value.trim())} />
        </label>
        <button type="button" className="btn btn-icon" title="Draw a new seed" aria-label="New seed" onClick={() => setSeed(String(newSeed()))}>
          ↻
        </button>
        <select className="field" aria-label="Stratify the sample" value={strata} onChange={(e) => setStrata(e.target.value)}>
          <option value="">not stratified</option>
          {SAMPLE_STRATA.map((s) => (
            <option key={s} value={s}>
              by {s}
            </option>
          ))}
        </select>
        <button
          type="submit"
          className="btn"
          disabled={!!sampleProblem || tooMany}
          title={sampleProblem ?? `A seeded random sample of ${picked.length ? "the selected rows" : "what the filters select"}`}
        >
          Sample {Number.isFinite(sizeNumber) ? formatCount(sizeNumber) : ""} {picked.length ? "of selection" : ""}
        </button>
        {sampleProblem && size !== "" && seed !== "" && (
          <span className="text-2xs text-rose-700" role="alert">
            {sampleProblem}
          </span>
        )}
      </form>
      <span className="ml-auto flex items-center gap-2">
        {compare && <CompareSelected compare={compare} />}
        {picked.length === 1 && selection.kind === "ids" && <OneRowActions id={picked[0]!} />}
        {campaignFilter && !tooMany ? (
          <Link className="btn btn-on" href={`/campaigns/new${trajectoryListSearch(campaignFilter)}`} data-testid="campaign-from-selection">
            {campaignText}
          </Link>
        ) : tooMany ? (
          <span className="text-2xs text-amber-700">More than {formatCount(MAX_IDS)} hand-picked rows: select all matching, or sample, instead</span>
        ) : null}
        <button type="button" className="btn btn-icon" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={onHelp}>
          ?
        </button>
      </span>
    </div>
  );
}

/** How many rows are selected, with the links to select every matching row or none. */
function SelectionStatus({
  all,
  picked,
  total,
  offerAllMatching,
  onSelectAllMatching,
  onClear,
}: {
  all: boolean;
  picked: number;
  total: number;
  offerAllMatching: boolean;
  onSelectAllMatching: () => void;
  onClear: (() => void) | null;
}) {
  return (
    <span className="flex items-center gap-2" data-testid="selection-status">
      {all ? (
        <span>
          All <strong className="tabular-nums">{formatCount(total)}</strong> matching selected
        </span>
      ) : picked ? (
        <span>
          <strong className="tabular-nums">{formatCount(picked)}</strong> selected
        </span>
      ) : (
        <span className="text-zinc-500">No rows selected</span>
      )}
      {offerAllMatching && (
        <button type="button" className="link" onClick={onSelectAllMatching}>
          Select all {formatCount(total)} matching
        </button>
      )}
      {onClear && (
        <button type="button" className="link" onClick={onClear}>
          Clear selection
        </button>
      )}
    </span>
  );
}

/** "Compare selected": a link to the attempts side by side, or a disabled button that says why not. */
function CompareSelected({ compare }: { compare: { href: string; problem: string | null } }) {
  return compare.problem ? (
    <button type="button" className="btn" disabled title={compare.problem} data-testid="compare-selected">
      Compare selected
    </button>
  ) : (
    <Link className="btn" href={compare.href} title="The selected attempts side by side, step by step or aligned by URL" data-testid="compare-selected">
      Compare selected
    </Link>
  );
}

/** With one row picked: open it with the gold form, or with its task's validity form. */
function OneRowActions({ id }: { id: number }) {
  return (
    <LinkButtons
      links={[
        {
          href: `/trajectories/${id}?gold=1`,
          label: "Mark gold…",
          title: "Open this trajectory with the gold form: its known answer in a campaign it is part of",
          testId: "gold-from-selection",
        },
        {
          href: `/trajectories/${id}?flag=1`,
          label: "Flag task…",
          title: "Open this trajectory with its task's validity form: flag the task broken, outdated, ambiguous or with a wrong reference",
          testId: "flag-from-selection",
        },
      ]}
    />
  );
}
