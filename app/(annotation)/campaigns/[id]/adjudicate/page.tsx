import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ItemState } from "@/server/domain/annotation/label-schema";
import { PageHeader } from "../../../../_components/ui";
import { requirePageRole } from "../../../../_lib/session";
import { api, orNotFound } from "../../../../_trpc/server";
import { ResearchersOnly } from "../../_components/forbidden";
import { DenseTable, right } from "../../../../_components/table";
import { LabelChips, QueueFooter, TaskCell } from "../../../_components/queue-parts";

export const metadata: Metadata = { title: "Adjudication" };

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const TABS: { state: ItemState | "qa"; label: string }[] = [
  { state: "disputed", label: "Disputed" },
  { state: "adjudicated", label: "Adjudicated" },
  { state: "agreed", label: "Agreed" },
  { state: "qa", label: "QA pending" },
];

/** The adjudication queue: trajectories whose annotators disagree, with their labels in brief. */
export default async function AdjudicationQueuePage({ params, searchParams }: Props) {
  const { allowed } = await requirePageRole("researcher");
  if (!allowed) return <ResearchersOnly />;
  const raw = (await params).id;
  if (!/^\d{1,9}$/.test(raw)) notFound();
  const id = Number(raw);
  const sp = await searchParams;
  const state = TABS.find((t) => t.state === sp.state)?.state ?? "disputed";
  const page = Math.max(1, Number(sp.page) || 1);
  const caller = await api();
  // The QA stage lists items whose labelling is over and that no QA reviewer has checked yet.
  const queue =
    state === "qa"
      ? await orNotFound(
          caller.campaigns
            .qaQueue({ id, status: "pending", page, pageSize: 50 })
            .then((q) => ({ ...q, items: q.items.map((i) => ({ ...i, itemId: i.trajectoryId })) })),
        )
      : await orNotFound(caller.campaigns.adjudicationQueue({ id, states: [state], page, pageSize: 50 }));
  return (
    <>
      <PageHeader
        title={`Adjudication: ${queue.campaign.name}`}
        crumbs={[
          { href: "/campaigns", label: "Campaigns" },
          { href: `/campaigns/${id}`, label: queue.campaign.name },
        ]}
        subtitle="Decide the consolidated label where annotators disagree; their own labels stay as they are."
      />
      <div className="flex flex-col gap-3 px-6 py-4">
        <nav className="flex gap-1" aria-label="Item state">
          {TABS.map((t) => (
            <Link key={t.state} href={`/campaigns/${id}/adjudicate?state=${t.state}`} className={`btn ${t.state === state ? "btn-on" : ""}`}>
              {t.label}
            </Link>
          ))}
        </nav>
        <div className="panel overflow-x-auto" data-testid="adjudication-queue">
          {queue.items.length === 0 ? (
            <p className="px-4 py-10 text-center text-zinc-500">
              {state === "disputed"
                ? "No disagreement waiting: every complete item agrees or was decided."
                : state === "qa"
                  ? "No item waiting for its QA review."
                  : "Nothing here."}
            </p>
          ) : (
            <DenseTable columns={["Trajectory", "Labels", "Run", right("Steps"), ""]}>
              {queue.items.map((item) => (
                <tr key={item.itemId}>
                  <TaskCell
                    externalTaskId={item.externalTaskId}
                    intent={item.intent}
                    after={
                      <>
                        {" "}
                        <span className="text-zinc-400">#{item.trajectoryId}</span>
                      </>
                    }
                  />
                  <td>
                    <LabelChips labels={item.labels} />
                  </td>
                  <td className="text-zinc-600">{item.runName}</td>
                  <td className="text-right tabular-nums">{item.stepCount}</td>
                  <td>
                    <Link className="link whitespace-nowrap" href={`/campaigns/${id}/review/${item.trajectoryId}`}>
                      {state === "disputed" ? "Adjudicate →" : state === "qa" ? "QA review →" : "Review →"}
                    </Link>
                  </td>
                </tr>
              ))}
            </DenseTable>
          )}
        </div>
        <QueueFooter queue={queue} page={page} href={(p) => `/campaigns/${id}/adjudicate?state=${state}&page=${p}`} />
      </div>
    </>
  );
}
