import { TRPCError } from "@trpc/server";
import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { ErrorPanel, formatDate, PageHeader } from "../../../_components/ui";
import { requirePageUser } from "../../../_lib/session";
import { api, orNotFound } from "../../../_trpc/server";
import { PairwiseQueue } from "../_components/pairwise-queue";
import { DenseTable } from "../../../_components/table";

export const metadata: Metadata = { title: "Annotate" };

type Props = { params: Promise<{ campaignId: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * Opening a campaign's queue asks the server for the next trajectory (reserving it) and goes there; when
 * nothing is left, it shows the annotator's own labels so they can revise one.
 */
export default async function CampaignQueuePage({ params, searchParams }: Props) {
  await requirePageUser();
  const raw = (await params).campaignId;
  const campaignId = /^\d{1,9}$/.test(raw) ? Number(raw) : null;
  if (!campaignId) return <ErrorPanel title="No such campaign" />;
  const caller = await api();
  const campaign = await orNotFound(caller.labelling.campaign({ id: campaignId }));
  const reviewOnly = (await searchParams).review !== undefined;
  if (!campaign.isAnnotator) {
    return (
      <ErrorPanel
        title="You are not an annotator of this campaign"
        message="Ask a researcher to add you; researchers follow progress on the campaign's page."
      />
    );
  }
  if (campaign.kind === "pairwise") return <PairwiseQueue campaignId={campaignId} />;
  if (campaign.status === "active" && !reviewOnly) {
    let next;
    try {
      next = await caller.labelling.next({ campaignId });
    } catch (e) {
      // Blocked after failing the campaign's quality checks: the server says why; nothing else is handed out.
      if (e instanceof TRPCError && e.code === "FORBIDDEN") {
        // A failed training says so, with the score and whom to ask.
        const q = await caller.labelling.qualification({ campaignId });
        if (q?.status === "failed")
          return (
            <ErrorPanel
              title="Training not passed"
              message={`You got ${q.correct} of ${q.items} training items right, fewer than this campaign asks for, so no trajectories will be handed to you and your labels do not count. Ask ${q.askName ?? "the researcher who runs the campaign"} to go through your answers with you.`}
            />
          );
        return <ErrorPanel title="No more trajectories for you in this campaign" message={e.message} />;
      }
      throw e;
    }
    if (next) redirect(`/annotate/${campaignId}/${next.itemNo}`);
  }
  const done = await caller.labelling.done({ campaignId, limit: 200 });
  return (
    <>
      <PageHeader
        title={campaign.name}
        crumbs={[{ href: "/annotate", label: "Annotate" }]}
        subtitle={
          campaign.status === "active"
            ? reviewOnly
              ? "Your labels in this campaign"
              : "Nothing left for you to label here: thank you!"
            : "This campaign is closed."
        }
        actions={
          reviewOnly && campaign.status === "active" ? (
            <Link className="btn btn-on" href={`/annotate/${campaignId}`}>
              Continue labelling →
            </Link>
          ) : undefined
        }
      />
      <div className="px-6 py-4">
        <section className="panel overflow-x-auto" data-testid="my-labels">
          <div className="border-b border-zinc-200 px-3 py-2">
            <h2 className="section-title">Your labels ({done.length})</h2>
          </div>
          {done.length ? (
            <DenseTable columns={["Task", "Verdict", "Category", "Revision", "Labelled", ""]}>
              {done.map((l) => (
                <tr key={l.itemNo}>
                  <td className="max-w-96">
                    <div className="font-mono text-[12px]">{l.externalTaskId}</div>
                    <div className="truncate text-zinc-500">{l.intent}</div>
                  </td>
                  <td>{l.verdict}</td>
                  <td>{l.category ?? "–"}</td>
                  <td className="tabular-nums">{l.revision}</td>
                  <td className="whitespace-nowrap">{formatDate(l.updatedAt)}</td>
                  <td>
                    {l.itemState === "adjudicated" ? (
                      <span className="text-2xs text-zinc-500">adjudicated</span>
                    ) : campaign.status === "active" ? (
                      <Link className="link" href={`/annotate/${campaignId}/${l.itemNo}`}>
                        Revise
                      </Link>
                    ) : null}
                  </td>
                </tr>
              ))}
            </DenseTable>
          ) : (
            <p className="px-4 py-8 text-center text-zinc-500">You have not labelled anything in this campaign.</p>
          )}
        </section>
      </div>
    </>
  );
}
