"use client";
/**
 * The trajectory list as a dense table; column headers are sort links. For researchers and admins (triage) it
 * also shows what humans and evaluators said, and rows can be selected: a checkbox per row, Shift+click for a
 * range, "select all N matching" (the filter itself, across pages), and the keyboard (j/k, x, Enter, ?). The
 * selection feeds the triage bar: a seeded sample of it, or a campaign from it.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { runLabels } from "@/server/domain/catalog/run-labels";
import type { TriageColumns } from "@/server/domain/triage-columns";
import { highlightTerms, parseSearchQuery, type SearchHit } from "@/server/domain/trajectories/search-query";
import { LIST_SHORTCUTS, listCommandForKey } from "@/server/domain/trajectory-list-keyboard";
import { trajectoryListSearch, type TrajectoryListQuery, type TrajectorySortKey } from "@/server/domain/trajectory-list-query";
import { MarkedParts } from "../../_components/search-highlight";
import { keyTargetOf } from "../../_lib/key-target";
import { ShortcutsHelp } from "../../_components/shortcuts-help";
import { compareHref, differentTasksProblem, MAX_COMPARED, MIN_COMPARED } from "../../compare/_lib/compare-ids";
import { formatDate, OutcomeBadge } from "../../_components/ui";
import { TriageBar, type Selection } from "./triage-bar";

export interface TrajectoryListRow {
  id: number;
  attempt: number;
  outcome: string;
  stepCount: number;
  finalAnswer: string | null;
  updatedAt: Date;
  taskId: number;
  externalTaskId: string;
  site: string | null;
  intent: string;
  taskSetName: string;
  runId: number;
  runName: string;
  agentName: string;
  model: string | null;
  /** The blind rule hides which agent made this trajectory. */
  agentHidden?: boolean;
  /** Labels and verdicts, for researchers and admins. */
  triage?: TriageColumns;
  /** The task's flag in the validity ledger, for researchers and admins. */
  taskFlag?: { status: string; reason: string };
  /** Where a behaviour search matched this trajectory. */
  hits?: SearchHit[];
}

const HIT_FIELD_NAMES: Record<string, string> = { element: "element text", url: "URL", intent: "task", rationale: "judge's rationale" };

/** Where a search matched, each hit a link into the player at its step with the search's words marked. */
function SearchHits({ id, hits, terms }: { id: number; hits: SearchHit[]; terms: string[] }) {
  const hl = terms.map((t) => `hl=${encodeURIComponent(t)}`).join("&");
  return (
    <ul className="mt-1 flex flex-col gap-0.5" data-testid="search-hits">
      {hits.map((h, i) => (
        <li key={i} className="min-w-0">
          <Link
            href={`/trajectories/${id}?${h.stepIndex === null ? "" : `step=${h.stepIndex + 1}&`}${hl}`}
            className="relative z-10 line-clamp-2 rounded px-1 text-[12px] text-zinc-700 hover:bg-amber-50"
            data-testid="search-hit"
          >
            <span className="mr-1.5 text-2xs font-medium text-zinc-500 uppercase">
              {h.stepIndex === null ? "" : `step ${h.stepIndex + 1} · `}
              {HIT_FIELD_NAMES[h.field] ?? h.field}
            </span>
            <MarkedParts parts={h.parts} />
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** The words a search marks in the player (none when the search does not parse). */
function searchTerms(search: string | undefined): string[] {
  if (!search) return [];
  try {
    return highlightTerms(parseSearchQuery(search));
  } catch {
    return [];
  }
}

/** The task: its id, attempt, set and intent, and where a behaviour search matched the trajectory. */
function TaskCell({ r, terms }: { r: TrajectoryListRow; terms: string[] }) {
  return (
    <td className="min-w-0" data-testid="task-cell">
      <div className="flex min-w-0 items-baseline gap-2">
        <span className="shrink-0 font-mono text-[12px] font-medium text-zinc-900">{r.externalTaskId}</span>
        {r.attempt > 0 && <span className="shrink-0 text-2xs text-zinc-500">attempt {r.attempt + 1}</span>}
        {r.taskFlag && (
          <span
            className="shrink-0 rounded bg-amber-50 px-1 text-2xs text-amber-800 ring-1 ring-amber-200 ring-inset"
            title={`Task flagged (${r.taskFlag.status.replace("_", " ")}): ${r.taskFlag.reason}. Left out of analytics.`}
            data-testid="task-flag-badge"
          >
            ⚑ {r.taskFlag.status.replace("_", " ")}
          </span>
        )}
        <span className="truncate text-2xs text-zinc-400">{r.taskSetName}</span>
      </div>
      <div className="line-clamp-1 text-zinc-600" title={r.intent}>
        {r.intent}
      </div>
      {r.hits && r.hits.length > 0 && <SearchHits id={r.id} hits={r.hits} terms={terms} />}
    </td>
  );
}

/** The run and its model; runs sharing a long path prefix are labelled by what differs (the full name in the tooltip). */
function RunCell({ r, label }: { r: TrajectoryListRow; label: string }) {
  return (
    <td className="min-w-0">
      {r.agentHidden ? (
        <div className="truncate text-zinc-400 italic" title="Hidden until you have labelled this trajectory">
          {r.runName}
        </div>
      ) : (
        <>
          <div className="truncate text-zinc-800" title={r.runName} data-testid="run-name">
            {label}
          </div>
          <div className="truncate text-2xs text-zinc-500" title={r.model ?? r.agentName}>
            {r.model ?? r.agentName}
          </div>
        </>
      )}
    </td>
  );
}

function SortHeader({
  query,
  sort,
  children,
  className,
  title,
}: {
  query: TrajectoryListQuery;
  sort: TrajectorySortKey;
  children: string;
  className?: string;
  title?: string;
}) {
  const active = query.sort === sort;
  // A first click sorts the natural way for the column (text ascending, numbers and dates descending; grades
  // failures first, which is what triage looks for).
  const firstDir = sort === "task" || sort === "site" || sort === "human" || sort === "verdict" ? "asc" : "desc";
  const dir = active ? (query.dir === "asc" ? "desc" : "asc") : firstDir;
  return (
    <th className={className} aria-sort={active ? (query.dir === "asc" ? "ascending" : "descending") : undefined} title={title}>
      <Link
        href={`/trajectories${trajectoryListSearch({ ...query, sort, dir, page: 1 })}`}
        className={`inline-flex items-center gap-0.5 hover:text-zinc-800 ${active ? "text-zinc-800" : ""}`}
      >
        {children}
        <span aria-hidden className="w-2.5 text-center">
          {active ? (query.dir === "asc" ? "▲" : "▼") : ""}
        </span>
      </Link>
    </th>
  );
}

const GRADE_STYLE: Record<string, string> = {
  success: "text-emerald-700",
  failure: "text-rose-700",
  unsure: "text-amber-700",
  unparseable: "text-amber-700",
  not_evaluable: "text-zinc-500",
};
const GRADE_TEXT: Record<string, string> = { not_evaluable: "not evaluable" };

function Grade({ value, title }: { value: string | null | undefined; title?: string }) {
  if (!value) return <span className="text-zinc-400">–</span>;
  return (
    <span className={`font-medium ${GRADE_STYLE[value] ?? "text-zinc-600"}`} title={title}>
      {GRADE_TEXT[value] ?? value}
    </span>
  );
}

function HumanCell({ t }: { t: TriageColumns }) {
  return (
    <td className="min-w-0" data-testid="human-cell">
      <div className="truncate">
        <Grade value={t.human?.verdict} title={t.human ? `Consolidated label of campaign ${t.human.campaignId}` : "No consolidated human label"} />
        {t.human?.category && <span className="ml-1 text-2xs text-zinc-500">{t.human.category}</span>}
      </div>
      <div className="truncate text-2xs text-zinc-500">{t.state ? t.state.state : "no campaign"}</div>
    </td>
  );
}

function RuleCell({ t }: { t: TriageColumns }) {
  const flags = t.flags.map((f) => f.replace(/^Heuristic:\s*/i, ""));
  return (
    <td className="min-w-0">
      <div className="truncate">
        {t.rules.length ? t.rules.map((r) => <Grade key={r.name} value={r.verdict} title={r.name} />) : <span className="text-zinc-400">–</span>}
      </div>
      {flags.length > 0 && (
        <div className="truncate text-2xs text-amber-700" title={`Heuristics that flag this trajectory: ${flags.join(", ")}`}>
          {flags.join(", ")}
        </div>
      )}
    </td>
  );
}

export function TrajectoryTable({
  rows,
  query,
  total,
  triage,
  evaluatorName,
}: {
  rows: TrajectoryListRow[];
  query: TrajectoryListQuery;
  total: number;
  /** Researchers and admins: grade columns, selection, sampling and campaigns. */
  triage: boolean;
  evaluatorName?: string;
}) {
  const [help, setHelp] = useState(false);
  const rowRefs = useRef<(HTMLTableRowElement | null)[]>([]);
  const rowSelection = useRowSelection(rows, query);
  const { selection, setSelection, focused, isSelected, allOnPage } = rowSelection;
  useListKeys({ enabled: triage, rows, rowRefs, help, setHelp, rowSelection });
  const terms = useMemo(() => searchTerms(query.search), [query.search]);
  const runLabel = useMemo(() => runLabels(rows.filter((r) => !r.agentHidden).map((r) => r.runName)), [rows]);
  const selectedCount = selection.kind === "all" ? total : selection.ids.size;
  const compare = useCompareSelected(rows, selection);

  return (
    <>
      {triage && (
        <TriageBar
          query={query}
          total={total}
          selection={selection}
          onSelectAllMatching={() => setSelection({ kind: "all" })}
          onClear={() => setSelection({ kind: "ids", ids: new Set() })}
          allOnPage={allOnPage}
          onHelp={() => setHelp(true)}
          compare={compare}
        />
      )}
      <div className="panel overflow-x-auto">
        {/* A minimum width keeps the Task column readable on narrow windows; the panel scrolls sideways instead. */}
        <table
          className={`table-dense table-fixed ${triage ? "min-w-[1100px]" : "min-w-[960px]"}`}
          data-testid="trajectory-table"
          aria-multiselectable={triage || undefined}
        >
          <TableHead
            query={query}
            triage={triage}
            evaluatorName={evaluatorName}
            allOnPage={allOnPage}
            onPageCheckbox={() => rowSelection.setMany(rowSelection.pageIds, !allOnPage)}
          />
          <tbody>
            {rows.map((r, index) => (
              <TrajectoryRow
                key={r.id}
                r={r}
                rowRef={(el) => {
                  rowRefs.current[index] = el;
                }}
                triage={triage}
                evaluatorName={evaluatorName}
                selected={isSelected(r.id)}
                focused={focused === index}
                onToggle={(shift) => rowSelection.toggleRow(index, shift)}
                terms={terms}
                runLabel={runLabel.get(r.runName) ?? r.runName}
              />
            ))}
          </tbody>
        </table>
      </div>
      {triage && selectedCount > 0 && <span className="sr-only" aria-live="polite">{`${selectedCount} selected`}</span>}
      {help && <ListHelp onClose={() => setHelp(false)} />}
    </>
  );
}

/**
 * The rows selected (ids, or every row the filter matches), the row the keyboard is on, and the anchor of a
 * Shift+click range. A selection belongs to one filter: changing the filters (not the page or sort) starts a new one.
 */
function useRowSelection(rows: TrajectoryListRow[], query: TrajectoryListQuery) {
  const [selection, setSelection] = useState<Selection>({ kind: "ids", ids: new Set() });
  const [focused, setFocused] = useState(-1);
  const [anchor, setAnchor] = useState<number | null>(null);
  const { sort: _s, dir: _d, page: _p, pageSize: _z, ...filter } = query;
  const filterKey = trajectoryListSearch(filter);
  useEffect(() => {
    setSelection({ kind: "ids", ids: new Set() });
    setAnchor(null);
  }, [filterKey]);
  useEffect(() => setFocused(-1), [rows]);

  const isSelected = useCallback((id: number) => selection.kind === "all" || selection.ids.has(id), [selection]);
  const pageIds = useMemo(() => rows.map((r) => r.id), [rows]);
  const allOnPage = pageIds.length > 0 && pageIds.every(isSelected);

  const setMany = (ids: number[], on: boolean) =>
    setSelection((s) => {
      const next = new Set(s.kind === "all" ? pageIds : s.ids);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return { kind: "ids", ids: next };
    });

  const toggleRow = (index: number, shift: boolean) => {
    const id = pageIds[index]!;
    const on = !isSelected(id);
    if (shift && anchor !== null && anchor !== index) {
      const [from, to] = anchor < index ? [anchor, index] : [index, anchor];
      setMany(pageIds.slice(from, to + 1), on);
    } else setMany([id], on);
    setAnchor(index);
    setFocused(index);
  };
  return { selection, setSelection, focused, setFocused, isSelected, pageIds, allOnPage, setMany, toggleRow };
}

/** The list's keys for triage (server/domain/trajectory-list-keyboard.ts): j/k move, x selects, Enter opens, ? helps. */
function useListKeys({
  enabled,
  rows,
  rowRefs,
  help,
  setHelp,
  rowSelection,
}: {
  enabled: boolean;
  rows: TrajectoryListRow[];
  rowRefs: React.RefObject<(HTMLTableRowElement | null)[]>;
  help: boolean;
  setHelp: (f: (open: boolean) => boolean) => void;
  rowSelection: ReturnType<typeof useRowSelection>;
}) {
  const router = useRouter();
  const { focused, setFocused, toggleRow } = rowSelection;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      const command = listCommandForKey(e, keyTargetOf(e.target));
      if (!command) return;
      if (help && command !== "toggleHelp" && command !== "close") return;
      if (command === "toggleHelp") setHelp((h) => !h);
      else if (command === "close") setHelp(() => false);
      else if (command === "down" || command === "up") {
        if (!rows.length) return;
        const next = focused < 0 ? 0 : Math.min(rows.length - 1, Math.max(0, focused + (command === "down" ? 1 : -1)));
        setFocused(next);
        rowRefs.current[next]?.scrollIntoView({ block: "nearest" });
      } else if (command === "toggle") {
        if (focused < 0) return;
        toggleRow(focused, false);
      } else if (command === "open") {
        if (focused < 0) return;
        router.push(`/trajectories/${rows[focused]!.id}`);
      } else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });
}

/** "Compare selected": two to four selected trajectories, and why not when they are attempts at different tasks. */
function useCompareSelected(rows: TrajectoryListRow[], selection: Selection) {
  // The task of every row seen (a selection can span pages).
  const taskOfRow = useRef(new Map<number, { taskId: number; name: string }>());
  for (const r of rows) taskOfRow.current.set(r.id, { taskId: r.taskId, name: r.externalTaskId });
  return useMemo(() => {
    if (selection.kind !== "ids" || selection.ids.size < MIN_COMPARED || selection.ids.size > MAX_COMPARED) return null;
    const ids = [...selection.ids];
    const known = ids.flatMap((id) => {
      const t = taskOfRow.current.get(id);
      return t ? [{ id, taskId: t.taskId, taskName: t.name }] : [];
    });
    return { href: compareHref(ids), problem: differentTasksProblem(known) };
  }, [selection]);
}

/** The columns (triage adds selection, human, verdict and rule) and their sort links. */
function TableHead({
  query,
  triage,
  evaluatorName,
  allOnPage,
  onPageCheckbox,
}: {
  query: TrajectoryListQuery;
  triage: boolean;
  evaluatorName?: string;
  allOnPage: boolean;
  onPageCheckbox: () => void;
}) {
  return (
    <>
      <colgroup>
        {triage && <col className="w-9" />}
        <col className="w-16" />
        <col />
        <col className={triage ? "w-28" : "w-32"} />
        <col className="w-44" />
        <col className="w-24" />
        <col className={triage ? "w-16" : "w-20"} />
        {triage && <col className="w-32" />}
        {triage && evaluatorName && <col className="w-24" />}
        {triage && <col className="w-24" />}
        <col className={triage ? "w-[16%]" : "w-[22%]"} />
        <col className={`w-32 ${triage ? "max-2xl:hidden" : "max-xl:hidden"}`} />
      </colgroup>
      <thead>
        <tr>
          {triage && (
            <th>
              <input
                type="checkbox"
                aria-label={allOnPage ? "Unselect every row on this page" : "Select every row on this page"}
                checked={allOnPage}
                onChange={onPageCheckbox}
                className="relative z-10 align-middle"
              />
            </th>
          )}
          <SortHeader query={query} sort="id">
            ID
          </SortHeader>
          <SortHeader query={query} sort="task">
            Task
          </SortHeader>
          <SortHeader query={query} sort="site">
            Site
          </SortHeader>
          <th>Run</th>
          <th>Outcome</th>
          <SortHeader query={query} sort="steps" className="text-right">
            Steps
          </SortHeader>
          {triage && (
            <SortHeader query={query} sort="human" title="Consolidated human label (latest campaign) and the item's state">
              Human
            </SortHeader>
          )}
          {triage && evaluatorName && (
            <SortHeader query={query} sort="verdict" title={`Verdict of ${evaluatorName}`}>
              Verdict
            </SortHeader>
          )}
          {triage && <th title="Benchmark rule result; heuristics that flag the trajectory are listed below it">Rule</th>}
          <th>Final answer</th>
          <SortHeader query={query} sort="updated" className={triage ? "max-2xl:hidden" : "max-xl:hidden"}>
            Updated
          </SortHeader>
        </tr>
      </thead>
    </>
  );
}

/** One trajectory: its link covers the row; under triage a checkbox (Shift+click for a range) and the grade cells. */
function TrajectoryRow({
  r,
  rowRef,
  triage,
  evaluatorName,
  selected,
  focused,
  onToggle,
  terms,
  runLabel,
}: {
  r: TrajectoryListRow;
  rowRef: (el: HTMLTableRowElement | null) => void;
  triage: boolean;
  evaluatorName?: string;
  selected: boolean;
  focused: boolean;
  onToggle: (shift: boolean) => void;
  terms: string[];
  runLabel: string;
}) {
  return (
    <tr
      ref={rowRef}
      className={`relative ${selected && triage ? "bg-indigo-50/60" : ""} ${focused ? "outline-2 -outline-offset-2 outline-indigo-500" : ""}`}
      data-testid="trajectory-row"
      data-focused={focused || undefined}
      aria-selected={triage ? selected : undefined}
    >
      {triage && (
        <td>
          <input
            type="checkbox"
            className="relative z-10 align-middle"
            aria-label={`Select trajectory ${r.id}`}
            checked={selected}
            onChange={() => undefined}
            onClick={(e) => onToggle(e.shiftKey)}
          />
        </td>
      )}
      <td className="font-mono text-zinc-500 tabular-nums">
        <Link
          href={`/trajectories/${r.id}`}
          className="after:absolute after:inset-0 hover:text-indigo-700"
          aria-label={`Open trajectory ${r.id}: ${r.externalTaskId}`}
        >
          {r.id}
        </Link>
      </td>
      <TaskCell r={r} terms={terms} />
      <td className="truncate text-zinc-700" title={r.site ?? undefined}>
        {r.site ?? <span className="text-zinc-400">–</span>}
      </td>
      <RunCell r={r} label={runLabel} />
      <td>
        <OutcomeBadge outcome={r.outcome} />
      </td>
      <td className="text-right tabular-nums">{r.stepCount}</td>
      {triage && r.triage && <HumanCell t={r.triage} />}
      {triage && evaluatorName && (
        <td data-testid="verdict-cell">
          <Grade value={r.triage?.verdict} />
        </td>
      )}
      {triage && r.triage && <RuleCell t={r.triage} />}
      <td className="min-w-0 text-zinc-600">
        {r.finalAnswer ? (
          <div className="line-clamp-2 break-words" title={r.finalAnswer}>
            {r.finalAnswer}
          </div>
        ) : (
          <span className="text-zinc-400">–</span>
        )}
      </td>
      <td className={`whitespace-nowrap pr-3 text-zinc-500 tabular-nums ${triage ? "max-2xl:hidden" : "max-xl:hidden"}`}>{formatDate(r.updatedAt)}</td>
    </tr>
  );
}

function ListHelp({ onClose }: { onClose: () => void }) {
  return (
    <ShortcutsHelp
      shortcuts={LIST_SHORTCUTS}
      extra={
        <tr>
          <td className="py-1.5 pr-4 whitespace-nowrap">
            <kbd className="kbd">Shift</kbd> + click
          </td>
          <td className="py-1.5 text-zinc-700">Select (or unselect) every row between the last clicked one and this one</td>
        </tr>
      }
      footnote="Keys are ignored while you type in a field. The filters, sort and sample are in the URL, so a link reopens the same view."
      testId="list-shortcuts-help"
      onClose={onClose}
    />
  );
}
