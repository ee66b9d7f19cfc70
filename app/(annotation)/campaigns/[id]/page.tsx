import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { evaluatorLabel, MAX_IDS } from "@/server/domain/trajectory-list-query";
import { ReportButton } from "../../../_components/report-dialog";
import { formatCount, formatDate, PageHeader, Stat } from "../../../_components/ui";
import { requirePageRole } from "../../../_lib/session";
import { api, orNotFound } from "../../../_trpc/server";
import { CampaignActions, AnnotatorPicker, ImportLabelsForm } from "../_components/campaign-controls";
import { ResearchersOnly } from "../_components/forbidden";
import { PairwiseCampaign } from "../_components/pairwise-campaign";
import { QualificationPanel } from "../_components/qualification-panel";
import { QualityPanel } from "../_components/quality-panel";
import { GuidelinesEditor } from "../_components/guidelines-editor";
import { DenseTable, right } from "../../../_components/table";

export const metadata: Metadata = { title: "Campaign" };

type Props = { params: Promise<{ id: string }> };

function minutes(ms: number | null): string {
  if (ms === null) return "–";
  const s = ms / 1000;
  return s < 90 ? `${s.toFixed(0)} s` : `${(s / 60).toFixed(1)} min`;
}

type Compliance = Awaited<ReturnType<Awaited<ReturnType<typeof api>>["campaigns"]["overview"]>>["compliance"];

/** How far the campaign meets its protocol: annotators per item, QA, guideline versions, and a badge. */
function ProtocolCompliance({ id, compliance: p }: { id: number; compliance: Compliance }) {
  const max = Math.max(1, ...p.annotatorsPerItem.map((b) => b.items));
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3" data-testid="protocol-compliance">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="section-title">
          Protocol{p.templateName ? `: ${p.templateName}` : ""}
          {p.templateVersion ? <span className="ml-1 font-normal text-zinc-500">template v{p.templateVersion}</span> : null}
        </h2>
        {p.meetsProtocol ? (
          <span className="rounded-full bg-emerald-100 px-2.5 py-0.5 text-[12px] font-semibold text-emerald-800" data-testid="protocol-badge">
            ✓ Meets the protocol
          </span>
        ) : (
          <span className="rounded-full bg-amber-100 px-2.5 py-0.5 text-[12px] font-semibold text-amber-800" data-testid="protocol-badge">
            Not yet: {p.shortfalls.join("; ")}
          </span>
        )}
      </div>
      <div className="grid gap-4 md:grid-cols-3">
        <div className="flex flex-col gap-1 text-[12.5px]">
          <span className="font-medium text-zinc-700">
            Annotators per item (needs {p.requirements.minAnnotatorsPerItem}) · {formatCount(p.itemsBelowTarget)} below
          </span>
          {p.annotatorsPerItem.map((b) => (
            <div key={b.labels} className="flex items-center gap-2">
              <span className={`w-16 tabular-nums ${b.labels < p.requirements.minAnnotatorsPerItem ? "text-amber-700" : "text-zinc-700"}`}>
                {b.labels} label{b.labels === 1 ? "" : "s"}
              </span>
              <div className="h-1.5 flex-1 overflow-hidden rounded-full bg-zinc-100">
                <div
                  className={`h-full ${b.labels < p.requirements.minAnnotatorsPerItem ? "bg-amber-400" : "bg-emerald-500"}`}
                  style={{ width: `${(100 * b.items) / max}%` }}
                />
              </div>
              <span className="w-14 text-right tabular-nums">{formatCount(b.items)}</span>
            </div>
          ))}
        </div>
        <div className="flex flex-col gap-1 text-[12.5px]">
          <span className="font-medium text-zinc-700">QA review{p.qa.required ? " (required)" : " (not required)"}</span>
          <span>
            <strong className="tabular-nums">{formatCount(p.qa.done)}</strong> done · <strong className="tabular-nums">{formatCount(p.qa.pending)}</strong>{" "}
            pending · <span className="tabular-nums">{formatCount(p.qa.notReady)}</span> still being labelled
          </span>
          {p.qa.pending > 0 && (
            <Link className="link" href={`/campaigns/${id}/adjudicate?state=qa`}>
              Review the pending items →
            </Link>
          )}
          {p.qa.required && (
            <Link className="link" href={`/qa/${id}`} data-testid="qa-page-link">
              The QA reviewers&apos; page →
            </Link>
          )}
        </div>
        <div className="flex flex-col gap-1 text-[12.5px]">
          <span className="font-medium text-zinc-700">Guideline versions used by labels</span>
          {p.guidelineVersions.length === 0 && <span className="text-zinc-500">No label yet.</span>}
          {p.guidelineVersions.map((v) => (
            <span key={String(v.version)}>
              {v.version === null ? "not recorded" : `v${v.version}`}: <span className="tabular-nums">{formatCount(v.labels)}</span> label
              {v.labels === 1 ? "" : "s"}
            </span>
          ))}
          {p.labelsOnOlderGuidelines > 0 && <span className="text-amber-700">{formatCount(p.labelsOnOlderGuidelines)} made under older guidelines</span>}
        </div>
      </div>
    </section>
  );
}

/** The campaign header's buttons: its report, the label exports, annotator quality and adjudication. */
function CampaignHeaderActions({
  id,
  name,
  items,
  disputed,
  evaluators,
}: {
  id: number;
  name: string;
  items: number;
  disputed: number;
  evaluators: { ref: string; name: string; k: string; promptVersion: string; kind: string }[];
}) {
  return (
    <>
      {items > 0 && items <= MAX_IDS && (
        <ReportButton
          selection={{}}
          campaignId={id}
          described={`the ${formatCount(items)} trajectories of this campaign`}
          evaluators={evaluators.map((e) => ({ ref: e.ref, label: evaluatorLabel(e) }))}
          title={name}
        />
      )}
      <a className="btn" href={`/api/campaigns/${id}/labels?format=csv`} download>
        Export CSV
      </a>
      <a className="btn" href={`/api/campaigns/${id}/labels?format=jsonl`} download>
        Export JSONL
      </a>
      <details className="relative">
        <summary className="btn cursor-pointer list-none">Benchmark formats ▾</summary>
        <div className="absolute right-0 z-10 mt-1 flex w-72 flex-col gap-1 rounded-md border border-zinc-200 bg-white p-2 shadow-md">
          <a
            className="btn justify-start"
            href={`/api/campaigns/${id}/labels?format=online-mind2web`}
            download
            title="0 / 1 / 2 per task and agent (consolidated labels)"
          >
            Online-Mind2Web human_label.json
          </a>
          <a className="btn justify-start" href={`/api/campaigns/${id}/labels?format=agentrewardbench`} download title="One row per annotator and trajectory">
            AgentRewardBench annotations.csv
          </a>
          <a
            className="btn justify-start"
            href={`/api/campaigns/${id}/labels?format=cuaverifierbench`}
            download
            title="trajectory, reviewer, stage, verdict, reasoning"
          >
            CUAVerifierBench table (CSV)
          </a>
        </div>
      </details>
      <Link className="btn" href={`/analytics/humans/annotators?campaign=${id}`}>
        Annotator quality
      </Link>
      <Link className="btn btn-on" href={`/campaigns/${id}/adjudicate`}>
        Adjudicate ({formatCount(disputed)})
      </Link>
    </>
  );
}

export default async function CampaignPage({ params }: Props) {
  const { allowed } = await requirePageRole("researcher");
  if (!allowed) return <ResearchersOnly />;
  const raw = (await params).id;
  if (!/^\d{1,9}$/.test(raw)) notFound();
  const id = Number(raw);
  const caller = await api();
  const [o, people, options] = await Promise.all([
    orNotFound(caller.campaigns.overview({ id })),
    caller.accounts.directory(),
    caller.trajectories.filterOptions(),
  ]);
  const c = o.campaign;
  if (c.kind === "pairwise")
    return <PairwiseCampaign id={id} people={people} members={o.annotators.filter((a) => a.member && a.userId).map((a) => a.userId!)} />;
  const target = o.counts.items * c.annotatorsPerItem;
  return (
    <>
      <PageHeader
        title={c.name}
        crumbs={[{ href: "/campaigns", label: "Campaigns" }]}
        subtitle={`${c.selection.description} · ${c.annotatorsPerItem} annotator${c.annotatorsPerItem === 1 ? "" : "s"} per trajectory · ${c.blind ? "blind" : "not blind"} · ${c.status}${c.origin === "import" ? " · imported labels" : ""}`}
        actions={<CampaignHeaderActions id={id} name={c.name} items={o.counts.items} disputed={o.counts.disputed} evaluators={options.evaluators ?? []} />}
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        {o.warnings.map((w) => (
          <p key={w} className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[12.5px] text-amber-800">
            {w}
          </p>
        ))}
        <div className="grid grid-cols-2 gap-3 md:grid-cols-6">
          <Stat label="Trajectories" value={formatCount(o.counts.items)} />
          <Stat label="Labels" value={`${formatCount(o.counts.labels)} / ${formatCount(target)}`} hint="Active labels, of items × annotators per item" />
          <Stat label="Open" value={formatCount(o.counts.open)} hint="Still need labels" />
          <Stat label="Agreed" value={formatCount(o.counts.agreed)} hint="Unanimous: consolidated automatically" />
          <Stat label="Disputed" value={formatCount(o.counts.disputed)} hint="Waiting for adjudication" />
          <Stat label="Adjudicated" value={formatCount(o.counts.adjudicated)} />
        </div>

        <ProtocolCompliance id={id} compliance={o.compliance} />

        <section className="panel overflow-x-auto" data-testid="annotator-progress">
          <div className="border-b border-zinc-200 px-3 py-2">
            <h2 className="section-title">Progress per annotator</h2>
          </div>
          <DenseTable
            columns={[
              "Annotator",
              right("Labelled"),
              { label: "Of the items", className: "w-48" },
              right("Success"),
              right("Failure"),
              right("Unsure"),
              right("Mean time"),
              right("Holding"),
              "Last label",
            ]}
          >
            {o.annotators.length === 0 && (
              <tr>
                <td colSpan={9} className="py-6 text-center text-zinc-500">
                  No annotator yet: add some below.
                </td>
              </tr>
            )}
            {o.annotators.map((a) => (
              <tr key={a.userId ?? `import:${a.name}`}>
                <td>
                  {a.name}
                  {!a.member && <span className="ml-1 text-2xs text-zinc-500">{a.userId ? "(removed)" : "(imported)"}</span>}
                </td>
                <td className="text-right tabular-nums">{formatCount(a.labelled)}</td>
                <td>
                  <div className="h-1.5 w-full overflow-hidden rounded-full bg-zinc-100">
                    <div className="h-full bg-indigo-500" style={{ width: `${o.counts.items ? (100 * a.labelled) / o.counts.items : 0}%` }} />
                  </div>
                </td>
                <td className="text-right tabular-nums">{a.success}</td>
                <td className="text-right tabular-nums">{a.failure}</td>
                <td className="text-right tabular-nums">{a.unsure}</td>
                <td className="text-right tabular-nums">{minutes(a.meanTimeMs)}</td>
                <td className="text-right tabular-nums">{a.reserved || ""}</td>
                <td className="whitespace-nowrap text-zinc-500">{formatDate(a.lastAt)}</td>
              </tr>
            ))}
          </DenseTable>
        </section>

        <div className="grid gap-4 lg:grid-cols-2">
          <AnnotatorPicker campaignId={id} people={people} members={o.annotators.filter((a) => a.member && a.userId).map((a) => a.userId!)} />
          <CampaignActions
            campaign={{ id, status: c.status, blind: c.blind, annotatorsPerItem: c.annotatorsPerItem, reservationMinutes: c.reservationMinutes }}
          />
        </div>
        <QualityPanel campaignId={id} />
        <QualificationPanel campaignId={id} />
        <ImportLabelsForm campaignId={id} />
        <GuidelinesEditor campaignId={id} text={c.instructions} version={c.guidelineVersion} />
      </div>
    </>
  );
}
