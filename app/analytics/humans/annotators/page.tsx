import type { Metadata } from "next";
import { NoCampaignsPage, startCampaignPage, type AnalyticsPageProps } from "../../_components/page-start";
import { EmptyState, PageHeader } from "../../../_components/ui";
import { Choice, ChoiceNav } from "../../_components/choice-nav";
import { TablePanel } from "../../_components/figure";
import { StatCards } from "../../_components/stat-cards";
import { prepareAnnotatorQuality } from "../../_lib/annotator-quality";
import { getParam, positiveInt } from "../../_lib/params";
import { AnnotatorChartGrid } from "./annotator-charts";

export const metadata: Metadata = { title: "Annotator quality" };

const MODELS = [
  { key: "majority", label: "majority vote" },
  { key: "dawid_skene", label: "Dawid–Skene" },
  { key: "mace", label: "MACE" },
] as const;
type Model = (typeof MODELS)[number]["key"];

export default async function AnnotatorQualityPage(props: AnalyticsPageProps) {
  const { sp, caller, campaigns } = await startCampaignPage(props);
  if (campaigns.length === 0) return <NoCampaignsPage title="Annotator quality" />;
  const all = getParam(sp, "campaign") === "all";
  const asked = positiveInt(getParam(sp, "campaign"));
  const campaign = all ? null : (campaigns.find((c) => c.id === asked) ?? campaigns[campaigns.length - 1]!);
  const modelParam = getParam(sp, "model");
  const model: Model = MODELS.some((m) => m.key === modelParam) ? (modelParam as Model) : "majority";
  const fastS = Math.min(3600, positiveInt(getParam(sp, "fast")) ?? 10);
  const window = Math.min(1000, positiveInt(getParam(sp, "window")) ?? 20);
  const result = await caller.quality.annotators({ campaignId: campaign?.id ?? null, model, tooFastMs: fastS * 1000, window });
  const view = prepareAnnotatorQuality(result);
  const href = (patch: { campaign?: number | "all"; model?: Model }) => {
    const q = new URLSearchParams({
      campaign: String(patch.campaign ?? campaign?.id ?? "all"),
      model: patch.model ?? model,
      fast: String(fastS),
      window: String(window),
    });
    return `/analytics/humans/annotators?${q.toString()}`;
  };

  return (
    <>
      <PageHeader
        title="Annotator quality"
        subtitle={`${campaign ? campaign.name : "All campaigns"} · consensus by ${MODELS.find((m) => m.key === model)!.label} · too fast under ${fastS} s · drift over the last ${window} labels`}
      />
      <div className="flex flex-col gap-4 px-6 py-3">
        <div className="flex flex-wrap items-center gap-2">
          <ChoiceNav label="Campaign" title="Campaign" className="flex flex-wrap items-center gap-1">
            <Choice href={href({ campaign: "all" })} on={all}>
              All campaigns
            </Choice>
            {campaigns.map((c) => (
              <Choice key={c.id} href={href({ campaign: c.id })} on={c.id === campaign?.id}>
                {c.name}
              </Choice>
            ))}
          </ChoiceNav>
          <ChoiceNav label="Consensus model" title="Consensus" className="ml-auto flex items-center gap-1">
            {MODELS.map((m) => (
              <Choice key={m.key} href={href({ model: m.key })} on={m.key === model}>
                {m.label}
              </Choice>
            ))}
          </ChoiceNav>
          <form className="flex items-center gap-1 text-[12px] text-zinc-600" action="/analytics/humans/annotators">
            <input type="hidden" name="campaign" value={campaign?.id ?? "all"} />
            <input type="hidden" name="model" value={model} />
            <label className="flex items-center gap-1">
              too fast under
              <input className="field h-7 w-16" type="number" name="fast" min={1} max={3600} defaultValue={fastS} aria-label="Too fast under (seconds)" />s
            </label>
            <label className="flex items-center gap-1">
              drift window
              <input className="field h-7 w-16" type="number" name="window" min={1} max={1000} defaultValue={window} aria-label="Drift window (labels)" />
            </label>
            <button className="btn" type="submit">
              Apply
            </button>
          </form>
        </div>
        {view.empty ? (
          <EmptyState title={campaign ? "No labels in this campaign yet" : "No labels yet"}>
            Annotators&apos; figures appear once they have labelled. Time and steps are recorded by the labelling page; imported labels have neither.
          </EmptyState>
        ) : (
          <>
            <StatCards cards={view.cards} />
            <TablePanel
              id="annotator-quality"
              title="Annotators"
              description={
                campaign
                  ? "Time per item, steps opened, agreement with the consensus of the other labels (gold items left out), category use against everyone's, and accuracy on gold items with its warn/block status."
                  : "Across every campaign: gold accuracy is per campaign, choose one to see it."
              }
              table={view.annotators}
            />
            <TablePanel
              id="annotator-pairs"
              title="Annotator × annotator Cohen κ"
              description="On success/failure labels of the trajectories both labelled, with the 95 % interval; pale below 10 shared."
              table={view.pairs}
            />
            <AnnotatorChartGrid charts={view.charts} window={window} />
          </>
        )}
      </div>
    </>
  );
}
