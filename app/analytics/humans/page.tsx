import type { Metadata } from "next";
import { NoCampaignsPage, startCampaignPage, type AnalyticsPageProps } from "../_components/page-start";
import Link from "next/link";
import { PageHeader } from "../../_components/ui";
import type { api } from "../../_trpc/server";
import { Figure, TablePanel } from "../_components/figure";
import { Choice, ChoiceNav } from "../_components/choice-nav";
import { HeatMatrix } from "../_components/heat-matrix";
import { IntervalNote } from "../_components/interval-note";
import { StatCards } from "../_components/stat-cards";
import { fmtCount } from "../_lib/format";
import { chooseHumansCampaign, prepareConsensus, prepareHumans, type AgreementLevel, type HumanView } from "../_lib/humans";
import { FLAGGED_PARAM, getParam, positiveInt } from "../_lib/params";
import { FlaggedNote, type FlaggedCount } from "../_components/flagged-note";
import { EmptyState } from "../../_components/ui";
import { RegionAgreementSection } from "./regions-section";
import { DenseTable, right } from "../../_components/table";
import { RateFigure } from "../_components/model-figures";

type HumansResult = Awaited<ReturnType<Awaited<ReturnType<typeof api>>["analytics"]["humans"]>>;

export const metadata: Metadata = { title: "Human agreement" };

export default async function HumansPage(props: AnalyticsPageProps) {
  const { sp, caller, campaigns } = await startCampaignPage(props);
  if (campaigns.length === 0) return <NoCampaignsPage title="Human agreement" />;
  const asked = positiveInt(getParam(sp, "campaign"));
  const { campaign } = chooseHumansCampaign(campaigns, asked)!;
  const level: AgreementLevel = getParam(sp, "level") === "verdict" ? "verdict" : "label";
  const options = await caller.analytics.options({ campaignId: campaign.id });
  const by = getParam(sp, "by")?.slice(0, 200) || undefined;
  const result = await caller.analytics.humans({ campaignId: campaign.id, by, includeFlagged: getParam(sp, FLAGGED_PARAM) === "include" });
  const view = prepareHumans(result, level);
  const regions = await caller.analytics.regions({ campaignId: campaign.id });
  const consensus = prepareConsensus(await caller.analytics.humanConsensus({ campaignId: campaign.id, level }));
  const href = (patch: HumansViewPatch) => humansHref({ campaign: campaign.id, level, by, includeFlagged: result.flagged.included }, patch);
  const splitKeys = options.splitKeys.filter((k) => (k.values > 1 && k.values <= 200) || k.key === by);

  return (
    <>
      <PageHeader title="Human agreement" subtitle={view.subtitle} />
      <div className="flex flex-col gap-4 px-6 py-3">
        <div className="flex flex-wrap items-center gap-2">
          <ChoiceNav label="Campaign" title="Campaign" className="flex flex-wrap items-center gap-1">
            {campaigns.map((c) => (
              <Choice key={c.id} href={href({ campaign: c.id })} on={c.id === campaign.id}>
                {c.name}{" "}
                <span
                  className="text-zinc-400 tabular-nums"
                  title={`${fmtCount(c.items)} trajectories, ${fmtCount(c.labels)} labels`}
                >{`${fmtCount(c.labels)} label${c.labels === 1 ? "" : "s"}`}</span>
              </Choice>
            ))}
          </ChoiceNav>
          <Link className="btn" href={`/analytics/humans/annotators?campaign=${campaign.id}`}>
            Annotator quality →
          </Link>
          <ChoiceNav label="Level" title="Agreement on" className="ml-auto flex items-center gap-1">
            <Choice href={href({ level: "label" })} on={level === "label"} title="Success, or failure with its error category">
              verdict + category
            </Choice>
            <Choice href={href({ level: "verdict" })} on={level === "verdict"} title="Success or failure only">
              verdict only
            </Choice>
          </ChoiceNav>
        </div>
        <SplitNav keys={splitKeys} by={by} href={(key) => href({ by: key })} flagged={result.flagged} />
        {view.empty === "no-labels" ? (
          <NoLabelsYet campaignId={campaign.id} elsewhere={campaigns.some((c) => c.labels > 0)} />
        ) : (
          <>
            <StatCards cards={view.cards} />
            <IntervalNote />
            {view.split && <HumansSplit split={view.split} />}
            <div className="grid gap-4 xl:grid-cols-2">
              <Figure
                id="pairwise"
                title="Annotator × annotator Cohen κ"
                description="κ on the trajectories both annotators labelled (n and agreement under each value); pale cells have fewer than 10 shared trajectories."
                chart={<HeatMatrix model={view.matrix} label="pairwise" />}
                table={view.pairs}
              />
              <RateFigure figure={view.perCategory} />
            </div>
            <RegionAgreementSection regions={regions} />
            <TablePanel
              id="disputed"
              title={`Most disputed trajectories (${fmtCount(view.disputedTotal)} with differing labels)`}
              description="Least agreement on the verdict first, then on the category; each opens in the player."
              table={view.disputed}
              controls={
                view.disputedTotal > 0 ? (
                  <Link className="btn" href={view.disputedHref}>
                    All {fmtCount(view.disputedTotal)} →
                  </Link>
                ) : null
              }
            />
            <TablePanel id="annotators" title="Annotators" table={view.annotators} />
            <DecisionSources decisions={result.decisions} />
            <section aria-labelledby="consensus-title" className="flex flex-col gap-4">
              <h2 id="consensus-title" className="section-title">
                Consensus models
              </h2>
              <StatCards cards={consensus.cards} />
              <TablePanel
                id="reliability"
                title="Annotator reliability"
                description="Dawid–Skene learns each annotator's full confusion matrix; MACE learns how often each one answers from the trajectory rather than from habit. Both read the same labels as the statistics above."
                table={consensus.annotators}
              />
              <TablePanel
                id="consensus-departures"
                title={`Where a model departs from the majority (${fmtCount(consensus.departuresTotal)})`}
                description="Trajectories whose most probable label under Dawid–Skene or MACE differs from the majority vote, or that have no majority; most confident first. Worth adjudicating."
                table={consensus.departures}
              />
            </section>
          </>
        )}
      </div>
    </>
  );
}

/** Why labels disagreed and how sure the deciders were, from adjudications and QA reviews. */
function DecisionSources({ decisions }: { decisions: HumansResult["decisions"] }) {
  return (
    <section className="panel flex flex-col gap-2 px-4 py-3" data-testid="decision-sources" aria-labelledby="decisions-title">
      <h2 id="decisions-title" className="section-title">
        Adjudications and QA reviews ({fmtCount(decisions.decisions)})
      </h2>
      <p className="text-2xs text-zinc-500">
        Why labels disagreed, as the adjudicator or QA reviewer recorded it, and how sure they were. {fmtCount(decisions.adjudicated)} adjudicated ·{" "}
        {fmtCount(decisions.qaConfirmed)} confirmed in QA · {fmtCount(decisions.qaCorrected)} corrected in QA.
      </p>
      <div className="grid gap-4 md:grid-cols-2">
        <DenseTable columns={["Source of the disagreement", right("Decisions")]}>
          {decisions.bySource.map((r) => (
            <tr key={r.source}>
              <td>{r.source.replace("_", " ")}</td>
              <td className="text-right tabular-nums">{fmtCount(r.n)}</td>
            </tr>
          ))}
        </DenseTable>
        <DenseTable columns={["Confidence", right("Decisions")]}>
          {decisions.byConfidence.map((r) => (
            <tr key={r.confidence}>
              <td>{r.confidence}</td>
              <td className="text-right tabular-nums">{fmtCount(r.n)}</td>
            </tr>
          ))}
        </DenseTable>
      </div>
    </section>
  );
}

type HumansViewPatch = { campaign?: number; level?: AgreementLevel; by?: string | null };

/** The page's own link with some of its choices changed (`by: null` drops the split). */
function humansHref(current: { campaign: number; level: AgreementLevel; by: string | undefined; includeFlagged: boolean }, patch: HumansViewPatch): string {
  const q = new URLSearchParams({ campaign: String(patch.campaign ?? current.campaign) });
  if (current.includeFlagged) q.set(FLAGGED_PARAM, "include");
  if ((patch.level ?? current.level) === "verdict") q.set("level", "verdict");
  const splitBy = patch.by === null ? undefined : (patch.by ?? current.by);
  if (splitBy) q.set("by", splitBy);
  return `/analytics/humans?${q.toString()}`;
}

/** The split choices (none, or any key with a few values: a task attribute, site, run…) and the flagged-tasks toggle. */
function SplitNav({
  keys,
  by,
  href,
  flagged,
}: {
  keys: { key: string; label: string; values: number }[];
  by: string | undefined;
  href: (key: string | null) => string;
  flagged: FlaggedCount;
}) {
  return (
    <>
      {keys.length > 0 && (
        <ChoiceNav label="Split by" title="Split by" className="flex flex-wrap items-center gap-1">
          <Choice href={href(null)} on={!by}>
            none
          </Choice>
          {keys.map((k) => (
            <Choice key={k.key} href={href(k.key)} on={by === k.key}>
              {k.label} <span className="tabular-nums text-zinc-400">{k.values}</span>
            </Choice>
          ))}
        </ChoiceNav>
      )}
      <FlaggedNote flagged={flagged} unit="items" />
    </>
  );
}

function HumansSplit({ split }: { split: NonNullable<HumanView["split"]> }) {
  return (
    <TablePanel
      id="humans-split"
      title={`Agreement by ${split.title}`}
      description={`α and Fleiss κ of the annotators' labels on each ${split.title} group's trajectories, at the level chosen above.`}
      table={split.table}
    />
  );
}

/** An empty campaign: whether other campaigns have labels, and where labels come from (the queue, or an import). */
function NoLabelsYet({ campaignId, elsewhere }: { campaignId: number; elsewhere: boolean }) {
  return (
    <EmptyState title="No labels in this campaign yet">
      {elsewhere ? "Other campaigns have labels: pick one above. " : "No campaign has labels yet. "}
      Annotators label trajectories from the campaign&apos;s queue; labels made elsewhere can be imported on{" "}
      <Link className="link" href={`/campaigns/${campaignId}`}>
        the campaign&apos;s page
      </Link>{" "}
      (Import labels).
    </EmptyState>
  );
}
