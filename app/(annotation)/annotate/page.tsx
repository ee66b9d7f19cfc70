import type { Metadata } from "next";
import Link from "next/link";
import { hasRole } from "@/server/domain/access/actor";
import { EmptyState, formatCount, PageHeader } from "../../_components/ui";
import { requirePageUser } from "../../_lib/session";
import { api } from "../../_trpc/server";

export const metadata: Metadata = { title: "Annotate" };

/** The annotator's home: the campaigns they label in, with what is left for them. */
export default async function AnnotatePage() {
  const user = await requirePageUser();
  const campaigns = await (await api()).labelling.myCampaigns();
  const active = campaigns.filter((c) => c.status === "active");
  const closed = campaigns.filter((c) => c.status !== "active");
  return (
    <>
      <PageHeader title="Annotate" subtitle="Your labelling queues. Each trajectory is reserved for you while you label it." />
      {campaigns.length === 0 ? (
        <EmptyState title="You are not in any labelling campaign">
          {hasRole(user, "researcher") ? (
            <>
              Create one on the{" "}
              <Link className="link" href="/campaigns">
                Campaigns
              </Link>{" "}
              page and add yourself as an annotator.
            </>
          ) : (
            "A researcher adds you to a campaign; it then appears here."
          )}
        </EmptyState>
      ) : (
        <div className="grid gap-3 px-6 py-4 md:grid-cols-2 xl:grid-cols-3">
          {[...active, ...closed].map((c) => (
            <section key={c.id} className="panel flex flex-col gap-2 px-4 py-3" data-testid={`campaign-card-${c.id}`}>
              <div className="flex items-start justify-between gap-2">
                <h2 className="text-[14px] font-semibold text-zinc-900">{c.name}</h2>
                {c.blind && <span className="rounded bg-zinc-100 px-1.5 py-px text-2xs font-medium text-zinc-600">blind</span>}
              </div>
              {c.kind === "pairwise" ? (
                <p className="text-[12px] text-zinc-500">
                  Pairwise: which of two attempts is better · {formatCount(c.items)} pair{c.items === 1 ? "" : "s"} · {formatCount(c.myLabels)} answered by you
                </p>
              ) : (
                <p className="text-[12px] text-zinc-500">
                  {formatCount(c.items)} trajector{c.items === 1 ? "y" : "ies"} · {c.annotatorsPerItem} annotator{c.annotatorsPerItem === 1 ? "" : "s"} per
                  trajectory · {formatCount(c.myLabels)} labelled by you
                </p>
              )}
              <div className="mt-auto flex items-center justify-between gap-2 pt-1">
                <span className="text-[12.5px] text-zinc-700 tabular-nums">
                  {c.status !== "active" ? "Closed" : c.remaining ? `${formatCount(c.remaining)} left for you` : "Nothing left for you"}
                </span>
                {c.status === "active" && c.remaining > 0 ? (
                  <Link className="btn btn-on" href={`/annotate/${c.id}`}>
                    {c.kind === "pairwise" ? "Start comparing →" : "Start labelling →"}
                  </Link>
                ) : (
                  <Link className="btn" href={`/annotate/${c.id}`}>
                    {c.kind === "pairwise" ? "Your answers" : "Your labels"}
                  </Link>
                )}
              </div>
            </section>
          ))}
        </div>
      )}
    </>
  );
}
