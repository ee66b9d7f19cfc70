import Link from "next/link";
import { redirect } from "next/navigation";
import { formatCount, PageHeader } from "../../../_components/ui";
import { api } from "../../../_trpc/server";

/**
 * A pairwise campaign's queue: opening it goes to the next pair the annotator has not answered; when none is left it
 * says so, with how many pairs they answered (their answers can be revised from a pair's page, by its number).
 */
export async function PairwiseQueue({ campaignId }: { campaignId: number }) {
  const caller = await api();
  const next = await caller.pairwise.next({ campaignId });
  if (next) redirect(`/annotate/${campaignId}/${next.itemNo}`);
  const c = await caller.pairwise.campaign({ campaignId });
  return (
    <>
      <PageHeader
        title={c.name}
        crumbs={[{ href: "/annotate", label: "Annotate" }]}
        subtitle={c.status === "active" ? "Nothing left for you to compare here: thank you!" : "This campaign is closed."}
      />
      <div className="px-6 py-4">
        <section className="panel flex flex-col items-center gap-2 px-4 py-10 text-center" data-testid="pairwise-done">
          <p className="text-[15px] font-semibold text-zinc-900">
            You answered {formatCount(c.answered)} of {formatCount(c.items)} pair{c.items === 1 ? "" : "s"}.
          </p>
          <p className="max-w-xl text-[12.5px] text-zinc-600">
            {c.answered < c.items ? "The other pairs already have the answers they need from other annotators." : "Every pair has your answer."} The researchers
            see the ranking once the answers are in.
          </p>
          <Link className="btn mt-2" href="/annotate">
            Back to your campaigns
          </Link>
        </section>
      </div>
    </>
  );
}
