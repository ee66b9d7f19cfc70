import type { Metadata } from "next";
import Link from "next/link";
import { selectionHref } from "@/server/domain/analytics/selection";
import { PageHeader, Pagination } from "../../../_components/ui";
import { api, orNotFound } from "../../../_trpc/server";
import { TablePanel } from "../../_components/figure";
import { CriteriaSection } from "../../_components/criteria-section";
import { AnalyticsFilterBar } from "../../_components/filter-bar";
import { HeatMatrix } from "../../_components/heat-matrix";
import { IntervalNote } from "../../_components/interval-note";
import { StatCards } from "../../_components/stat-cards";
import { fmtCount } from "../../_lib/format";
import { disagreementTable, judgePageHref, prepareJudgeDetail } from "../../_lib/judges";
import { analyticsSearch, getParam, parseAnalyticsParams, positiveInt, scopeOfParams } from "../../_lib/params";
import { RateFigure } from "../../_components/model-figures";

export const metadata: Metadata = { title: "Judge agreement" };

const KINDS = [
  { kind: "all", label: "All disagreements" },
  { kind: "false_success", label: "Evaluator: success, human: failure" },
  { kind: "false_failure", label: "Evaluator: failure, human: success" },
  { kind: "unparseable", label: "Unparseable replies" },
] as const;
type Kind = (typeof KINDS)[number]["kind"];

function withParams(href: string, extra: Record<string, string | number | undefined>): string {
  const [path, query = ""] = href.split("?");
  const sp = new URLSearchParams(query);
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) sp.set(k, String(v));
  const q = sp.toString();
  return `${path}${q ? `?${q}` : ""}`;
}

function kindCountsOf(s: { falseSuccess: number; falseFailure: number; unparseable: number }): Record<Kind, number> {
  return { all: s.falseSuccess + s.falseFailure, false_success: s.falseSuccess, false_failure: s.falseFailure, unparseable: s.unparseable };
}
const JUDGE_FILTERS = { campaign: true, reference: true, unparseable: true, by: true };

export default async function JudgePage({
  params: routeParams,
  searchParams,
}: {
  params: Promise<{ key: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const key = decodeURIComponent((await routeParams).key);
  const sp = await searchParams;
  const params = parseAnalyticsParams(sp);
  const k = getParam(sp, "k");
  const pv = getParam(sp, "pv");
  const bootstrap = getParam(sp, "bootstrap") === "1";
  const kindParam = getParam(sp, "dkind");
  const kind: Kind = KINDS.some((x) => x.kind === kindParam) ? (kindParam as Kind) : "all";
  const page = positiveInt(getParam(sp, "dpage")) ?? 1;

  const caller = await api();
  const common = { scope: scopeOfParams(params), campaignId: params.campaignId, unparseable: params.unparseable };
  const [options, detail] = await Promise.all([
    caller.analytics.options(),
    orNotFound(
      caller.analytics.judge({
        ...common,
        reference: params.reference,
        by: params.by,
        evaluatorKey: key,
        k,
        promptVersion: pv,
        bootstrap: bootstrap ? { replicates: 2000, seed: 1 } : undefined,
      }),
    ),
  ]);
  const identity = detail.selected.identity;
  const disagreements = await caller.analytics.disagreements({ ...common, reference: params.reference, identity, kind, page, pageSize: 50 });
  const search = analyticsSearch(params);
  const view = prepareJudgeDetail(detail, search);
  const pageHref = judgePageHref(key, identity, search);
  const here = (extra: Record<string, string | number | undefined>) => withParams(pageHref, extra);
  const keep = { k: identity.k || undefined, pv: identity.pv || undefined };
  const s = detail.overall;
  const kindCounts = kindCountsOf(s);
  // disagreementSel: [human success & evaluator failure, human failure & evaluator success].
  const listSel =
    kind === "false_failure" ? s.disagreementSel[0] : kind === "false_success" ? s.disagreementSel[1] : kind === "unparseable" ? s.unparseableSel : null;

  return (
    <>
      <PageHeader
        crumbs={[{ href: `/analytics/judges${search}`, label: "Judge agreement" }]}
        title={view.title}
        subtitle={`${detail.kind} · ${key}${identity.pv ? ` · prompt ${identity.pv}` : ""} · ${view.reference}`}
        actions={
          <Link
            className={`btn ${bootstrap ? "btn-on" : ""}`}
            href={bootstrap ? here({}) : here({ bootstrap: 1 })}
            title="Percentile bootstrap interval for κ (2,000 resamples)"
          >
            {bootstrap ? "Bootstrap CI: on" : "Add bootstrap CI"}
          </Link>
        }
      />
      <div className="flex flex-col gap-4 px-6 py-3">
        <AnalyticsFilterBar params={params} options={options} show={JUDGE_FILTERS} keep={keep} flagged={detail.flagged} />
        {view.settings.length > 1 && <SettingsNav settings={view.settings} />}
        {view.skewWarning && (
          <div role="note" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-[12px] text-amber-900" data-testid="skew-warning">
            {view.skewWarning}
          </div>
        )}
        <StatCards cards={view.cards} />
        <IntervalNote />
        <div className="grid gap-4 lg:grid-cols-[auto_1fr]">
          <TablePanel
            id="confusion"
            title="Confusion matrix"
            description={`Rows: ${detail.reference.description}; columns: the evaluator. Each cell lists its trajectories.`}
            table={view.confusionTable}
            controls={null}
          />
          <section className="panel px-3 py-2" aria-label="Confusion matrix, shaded">
            <div className="section-title mb-2">Human × evaluator</div>
            <HeatMatrix model={view.confusion} label="confusion" />
          </section>
        </div>
        <TablePanel
          id="by-reference"
          title="Against every reference"
          description="The same setting against the consolidated label, the majority of the annotators (tied trajectories counted apart, never broken by a guess) and each annotator alone. Click one to use it on this page."
          table={view.byReference}
        />
        {view.split && <RateFigure figure={view.split} />}
        {view.kTable && <RateFigure figure={view.kTable} defaultView="table" />}
        <RateFigure figure={view.bySite} />
        <RateFigure figure={view.byCategory} />
        <TablePanel id="by-run" title="Agreement per agent run" table={view.byRun} />
        <CriteriaSection evaluatorKey={key} k={identity.k} campaignId={params.campaignId} />
        <TablePanel
          id="disagreements"
          title={`${KINDS.find((x) => x.kind === kind)!.label} (${fmtCount(disagreements.total)})`}
          description="Trajectories where the evaluator and the human label differ; each opens in the player."
          table={disagreementTable(disagreements.rows, `${view.title} ${kind}`)}
          controls={<KindNav kind={kind} counts={kindCounts} href={(k) => here({ dkind: k === "all" ? undefined : k })} listSel={listSel} />}
        />
        {disagreements.total > disagreements.pageSize && (
          <Pagination
            page={disagreements.page}
            pageCount={disagreements.pageCount}
            total={disagreements.total}
            pageSize={disagreements.pageSize}
            href={(p) => here({ dkind: kind === "all" ? undefined : kind, dpage: p })}
          />
        )}
      </div>
    </>
  );
}

/** The evaluator's other settings (k, prompt version), when it has more than one. */
function SettingsNav({ settings }: { settings: { key: string; href: string; label: string; current: boolean }[] }) {
  return (
    <nav aria-label="Settings" className="flex flex-wrap items-center gap-1">
      <span className="section-title mr-1">Setting</span>
      {settings.map((x) => (
        <Link key={x.key} href={x.href} aria-current={x.current ? "page" : undefined} className={`btn ${x.current ? "btn-on" : ""}`}>
          {x.label}
        </Link>
      ))}
    </nav>
  );
}

/** The kinds of disagreement to list, with their counts, and the current kind's trajectories as a list. */
function KindNav({
  kind,
  counts,
  href,
  listSel,
}: {
  kind: Kind;
  counts: Record<Kind, number>;
  href: (kind: Kind) => string;
  listSel: Parameters<typeof selectionHref>[0] | null | undefined;
}) {
  return (
    <nav aria-label="Kind" className="flex flex-wrap gap-1">
      {KINDS.map((x) => (
        <Link key={x.kind} href={href(x.kind)} aria-current={x.kind === kind ? "page" : undefined} className={`btn ${x.kind === kind ? "btn-on" : ""}`}>
          {x.label} <span className="tabular-nums text-zinc-500">{fmtCount(counts[x.kind])}</span>
        </Link>
      ))}
      {listSel && (
        <Link className="btn" href={selectionHref(listSel)} title="Open these trajectories as a list">
          As a list →
        </Link>
      )}
    </nav>
  );
}
