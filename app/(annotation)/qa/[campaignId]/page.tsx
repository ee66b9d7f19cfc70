import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { EmptyState, PageHeader } from "../../../_components/ui";
import { requirePageUser } from "../../../_lib/session";
import { api, orNotFound } from "../../../_trpc/server";
import { DenseTable, right } from "../../../_components/table";
import { LabelChips, QueueFooter, TaskCell } from "../../_components/queue-parts";

export const metadata: Metadata = { title: "QA queue" };

type Props = { params: Promise<{ campaignId: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * A QA reviewer's queue: the campaign's items whose labelling is over, waiting for (or done with) their QA
 * review, disputed ones first when the campaign assigns disputed items first. Items are addressed by number.
 */
export default async function QaQueuePage({ params, searchParams }: Props) {
  await requirePageUser();
  const raw = (await params).campaignId;
  if (!/^\d{1,9}$/.test(raw)) notFound();
  const campaignId = Number(raw);
  const sp = await searchParams;
  const status = sp.status === "done" ? "done" : "pending";
  const page = Math.max(1, Number(sp.page) || 1);
  const queue = await orNotFound((await api()).qa.queue({ campaignId, status, page, pageSize: 50 }));
  const firstOpen = queue.items.find((i) => !i.blind);
  return (
    <>
      <PageHeader
        title={`QA review: ${queue.campaign.name}`}
        crumbs={[{ href: "/qa", label: "QA review" }]}
        subtitle={queue.disputedFirst ? "Disputed items first, then the others in order." : "Items whose labelling is over, in order."}
        actions={
          status === "pending" && firstOpen ? (
            <Link className="btn btn-on" href={`/qa/${campaignId}/${firstOpen.itemNo}`} data-testid="qa-start">
              Start reviewing
            </Link>
          ) : undefined
        }
      />
      <div className="flex flex-col gap-3 px-6 py-4">
        <nav className="flex gap-1" aria-label="QA status">
          <Link href={`/qa/${campaignId}`} className={`btn ${status === "pending" ? "btn-on" : ""}`}>
            Waiting
          </Link>
          <Link href={`/qa/${campaignId}?status=done`} className={`btn ${status === "done" ? "btn-on" : ""}`}>
            Reviewed
          </Link>
        </nav>
        {!queue.qaStage ? (
          <EmptyState title="This campaign has no QA stage">A researcher turns the QA stage on in the campaign&apos;s protocol.</EmptyState>
        ) : queue.items.length === 0 ? (
          <EmptyState title={status === "pending" ? "Nothing waiting for QA" : "No item reviewed yet"}>
            {status === "pending"
              ? "Items appear here once all their annotators have labelled them."
              : "Items you and other reviewers approve or correct appear here."}
          </EmptyState>
        ) : (
          <div className="panel overflow-x-auto" data-testid="qa-queue">
            <DenseTable columns={["Item", "Task", "State", "Labels", right("Steps"), ""]}>
              {queue.items.map((item) => (
                <tr key={item.itemNo} data-testid="qa-queue-row">
                  <td className="tabular-nums">#{item.itemNo}</td>
                  <TaskCell externalTaskId={item.externalTaskId} intent={item.intent} />
                  <td>
                    <span className={item.state === "disputed" ? "font-medium text-rose-700" : "text-zinc-600"}>{item.state}</span>
                  </td>
                  <td>
                    {item.blind ? (
                      <span className="text-2xs text-zinc-500">hidden: you still label this trajectory blind</span>
                    ) : (
                      <LabelChips labels={item.labels} />
                    )}
                  </td>
                  <td className="text-right tabular-nums">{item.stepCount}</td>
                  <td>
                    {!item.blind && (
                      <Link className="link whitespace-nowrap" href={`/qa/${campaignId}/${item.itemNo}`}>
                        {status === "pending" ? "Review →" : "Open →"}
                      </Link>
                    )}
                  </td>
                </tr>
              ))}
            </DenseTable>
          </div>
        )}
        <QueueFooter queue={queue} page={page} href={(p) => `/qa/${campaignId}?status=${status}&page=${p}`} />
      </div>
    </>
  );
}
