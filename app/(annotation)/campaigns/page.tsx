import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState, formatCount, formatDate, PageHeader } from "../../_components/ui";
import { requirePageRole } from "../../_lib/session";
import { api } from "../../_trpc/server";
import { ResearchersOnly } from "./_components/forbidden";
import { DenseTable, right } from "../../_components/table";

export const metadata: Metadata = { title: "Campaigns" };

export default async function CampaignsPage() {
  const { allowed } = await requirePageRole("researcher");
  if (!allowed) return <ResearchersOnly />;
  const campaigns = await (await api()).campaigns.list();
  return (
    <>
      <PageHeader
        title="Labelling campaigns"
        subtitle="Human labels on a selection of trajectories: several annotators each, disagreements adjudicated"
        actions={
          <Link className="btn btn-on" href="/campaigns/new">
            New campaign
          </Link>
        }
      />
      {campaigns.length === 0 ? (
        <EmptyState title="No campaign yet">
          Pick trajectories on the{" "}
          <Link className="link" href="/trajectories">
            Trajectories
          </Link>{" "}
          page with its filters, then “New campaign from these filters”, or start from all trajectories with “New campaign”. Labels made elsewhere can be
          imported with <code className="font-mono">npm run cli -- labels import</code>.
        </EmptyState>
      ) : (
        <div className="px-6 py-4">
          <div className="panel overflow-x-auto">
            <DenseTable
              columns={[
                "Campaign",
                "Selection",
                right("Items"),
                { label: "Labels", className: "w-56" },
                right("Agreed"),
                right("Disputed"),
                right("Adjudicated"),
                "Created",
              ]}
            >
              {campaigns.map((c) => {
                const counts = c.counts;
                const target = c.items * c.annotatorsPerItem;
                const pct = target && counts ? Math.min(100, (100 * counts.labels) / target) : 0;
                return (
                  <tr key={c.id}>
                    <td>
                      <Link className="link font-medium" href={`/campaigns/${c.id}`}>
                        {c.name}
                      </Link>
                      <div className="flex gap-1 text-2xs text-zinc-500">
                        {c.status !== "active" && <span className="rounded bg-zinc-100 px-1">closed</span>}
                        {c.origin === "import" && <span className="rounded bg-zinc-100 px-1">imported</span>}
                        {c.kind === "pairwise" && <span className="rounded bg-violet-100 px-1 text-violet-800">pairwise</span>}
                        {c.blind && <span className="rounded bg-zinc-100 px-1">blind</span>}
                        <span>k = {c.annotatorsPerItem}</span>
                      </div>
                    </td>
                    {/* A campaign the viewer still labels blind shows only their own progress. */}
                    <td className="max-w-64 truncate text-zinc-600" title={c.selection?.description ?? "Hidden while you label this campaign blind"}>
                      {c.selection?.description ?? <span className="text-zinc-400 italic">hidden while you label it blind</span>}
                    </td>
                    <td className="text-right tabular-nums">
                      {formatCount(c.items)}
                      {c.kind === "pairwise" && ` pair${c.items === 1 ? "" : "s"}`}
                    </td>
                    <td>
                      {counts ? (
                        <>
                          <div className="h-1.5 w-full overflow-hidden rounded-full bg-zinc-100">
                            <div className="h-full bg-indigo-500" style={{ width: `${pct}%` }} />
                          </div>
                          <div className="mt-0.5 text-2xs text-zinc-500 tabular-nums">
                            {formatCount(counts.labels)} of {formatCount(target)}
                          </div>
                        </>
                      ) : (
                        <div className="text-2xs text-zinc-500 tabular-nums">{formatCount(c.myLabels)} by you</div>
                      )}
                    </td>
                    <td className="text-right tabular-nums">{counts && c.kind !== "pairwise" ? formatCount(counts.agreed) : "–"}</td>
                    <td className="text-right tabular-nums">
                      {c.kind === "pairwise" ? (
                        "–"
                      ) : counts?.disputed ? (
                        <Link className="link" href={`/campaigns/${c.id}/adjudicate`}>
                          {formatCount(counts.disputed)}
                        </Link>
                      ) : counts ? (
                        0
                      ) : (
                        "–"
                      )}
                    </td>
                    <td className="text-right tabular-nums">{counts && c.kind !== "pairwise" ? formatCount(counts.adjudicated) : "–"}</td>
                    <td className="whitespace-nowrap text-zinc-500">{formatDate(c.createdAt)}</td>
                  </tr>
                );
              })}
            </DenseTable>
          </div>
        </div>
      )}
    </>
  );
}
