import type { Metadata } from "next";
import Link from "next/link";
import { hasRole } from "@/server/domain/access/actor";
import { EmptyState, formatCount, PageHeader } from "../../../_components/ui";
import { requirePageUser } from "../../../_lib/session";
import { api } from "../../../_trpc/server";

export const metadata: Metadata = { title: "QA review" };

/** A QA reviewer's home: the campaigns they review, with the items waiting for them. */
export default async function QaHomePage() {
  const user = await requirePageUser();
  const campaigns = await (await api()).qa.campaigns();
  return (
    <>
      <PageHeader title="QA review" subtitle="Campaigns you review after their annotators: check each item's labels and approve or correct its label." />
      {campaigns.length === 0 ? (
        <EmptyState title="You are not a QA reviewer of any campaign">
          {hasRole(user, "researcher") ? (
            <>
              Researchers review QA from a campaign&apos;s{" "}
              <Link className="link" href="/campaigns">
                adjudication page
              </Link>
              .
            </>
          ) : (
            "A researcher designates QA reviewers on the campaign's page; the campaign then appears here."
          )}
        </EmptyState>
      ) : (
        <div className="grid gap-3 px-6 py-4 md:grid-cols-2 xl:grid-cols-3" data-testid="qa-campaigns">
          {campaigns.map((c) => (
            <section key={c.id} className="panel flex flex-col gap-2 px-4 py-3" data-testid={`qa-campaign-${c.id}`}>
              <h2 className="text-[14px] font-semibold text-zinc-900">{c.name}</h2>
              <p className="text-[12px] text-zinc-500">
                {c.qaStage ? `${formatCount(c.pending)} item${c.pending === 1 ? "" : "s"} waiting for QA` : "This campaign has no QA stage"}
                {c.status !== "active" && ` · ${c.status}`}
              </p>
              <Link className="btn btn-on mt-auto self-start" href={`/qa/${c.id}`}>
                Open the QA queue
              </Link>
            </section>
          ))}
        </div>
      )}
    </>
  );
}
