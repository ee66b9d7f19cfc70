import { TRPCError } from "@trpc/server";
import { formatCount, PageHeader, Stat } from "../../../_components/ui";
import { api } from "../../../_trpc/server";
import { AnnotatorPicker } from "./campaign-controls";
import { ExportPreferencePairs, PairwiseRankingView } from "./pairwise-ranking";

type Person = Awaited<ReturnType<Awaited<ReturnType<typeof api>>["accounts"]["directory"]>>[number];

/**
 * A pairwise campaign's page for researchers: its pairs and answers, the ranking of its runs (or why there is none
 * yet), the preference-pair export and its annotators. A researcher who still answers in the campaign is told
 * the ranking opens once their pairs are done (the ranking names the runs the blind hides from them).
 */
export async function PairwiseCampaign({ id, people, members }: { id: number; people: Person[]; members: string[] }) {
  const caller = await api();
  let result;
  try {
    result = await caller.pairwise.ranking({ campaignId: id });
  } catch (e) {
    if (!(e instanceof TRPCError && e.code === "FORBIDDEN")) throw e;
    const c = await caller.pairwise.campaign({ campaignId: id });
    return (
      <>
        <PageHeader title={c.name} crumbs={[{ href: "/campaigns", label: "Campaigns" }]} subtitle="Pairwise campaign" />
        <div className="px-6 py-4">
          <p className="panel px-4 py-3 text-[12.5px] text-zinc-700" role="status" data-testid="ranking-refused">
            {e.message}. You have answered {formatCount(c.answered)} of {formatCount(c.items)} pairs.{" "}
            <a className="link" href={`/annotate/${id}`}>
              Answer your pairs →
            </a>
          </p>
        </div>
      </>
    );
  }
  const { campaign: c, progress: p, ranking } = result;
  const target = p.items * c.annotatorsPerItem;
  return (
    <>
      <PageHeader
        title={c.name}
        crumbs={[{ href: "/campaigns", label: "Campaigns" }]}
        subtitle={`Pairwise · ${c.selection.description} · ${c.annotatorsPerItem} answer${c.annotatorsPerItem === 1 ? "" : "s"} per pair · ${c.status}`}
        actions={<ExportPreferencePairs campaignId={id} />}
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <div className="grid grid-cols-2 gap-3 md:grid-cols-4" data-testid="pairwise-stats">
          <Stat label="Pairs" value={formatCount(p.items)} hint="Two attempts at one task by different runs" />
          <Stat label="Answers" value={`${formatCount(p.answers)} / ${formatCount(target)}`} hint="Answers given, of pairs × answers per pair" />
          <Stat label="Complete pairs" value={formatCount(p.complete)} hint="Pairs with all their answers" />
          <Stat label="Still to answer" value={formatCount(p.items - p.complete)} hint="Pairs still short of their answers" />
        </div>
        {p.items > 0 && (
          <div className="h-1.5 w-full overflow-hidden rounded-full bg-zinc-100" title={`${p.answers} of ${target} answers`}>
            <div className="h-full bg-indigo-500" style={{ width: `${target ? Math.min(100, (100 * p.answers) / target) : 0}%` }} />
          </div>
        )}
        <section className="panel flex flex-col gap-2 px-4 py-3">
          <h2 className="section-title">Ranking of the runs (Bradley–Terry)</h2>
          {p.complete < p.items && (
            <p className="text-[12px] text-zinc-600" data-testid="ranking-partial">
              {formatCount(p.items - p.complete)} pair{p.items - p.complete === 1 ? "" : "s"} still to answer: the ranking below uses the{" "}
              {formatCount(p.answers)} answer{p.answers === 1 ? "" : "s"} given so far.
            </p>
          )}
          <PairwiseRankingView ranking={ranking} />
        </section>
        <div className="grid gap-4 lg:grid-cols-2">
          <AnnotatorPicker campaignId={id} people={people} members={members} />
        </div>
      </div>
    </>
  );
}
