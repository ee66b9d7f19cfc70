import type { Metadata } from "next";
import Link from "next/link";
import { activeFilterCount, parseTrajectoryListParams, trajectoryListSearch } from "@/server/domain/trajectory-list-query";
import { formatCount, PageHeader } from "../../../_components/ui";
import { requirePageRole } from "../../../_lib/session";
import { api } from "../../../_trpc/server";
import { ResearchersOnly } from "../_components/forbidden";
import { NewCampaignForm } from "../_components/new-campaign-form";

export const metadata: Metadata = { title: "New campaign" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** A campaign over what the trajectory list shows with the same URL parameters (its filters). */
export default async function NewCampaignPage({ searchParams }: Props) {
  const { allowed } = await requirePageRole("researcher");
  if (!allowed) return <ResearchersOnly />;
  const { sort: _s, dir: _d, page: _p, pageSize: _z, ...filter } = parseTrajectoryListParams(await searchParams);
  const caller = await api();
  const [preview, people, templates, evaluators] = await Promise.all([
    caller.campaigns.previewSelection({ filter }),
    caller.accounts.directory(),
    caller.campaigns.templates(),
    caller.judge.verdicts.evaluators(),
  ]);
  const listLink = `/trajectories${trajectoryListSearch(filter)}`;
  return (
    <>
      <PageHeader title="New campaign" crumbs={[{ href: "/campaigns", label: "Campaigns" }]} />
      <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 px-6 py-4">
        <section className="panel px-4 py-3">
          <h2 className="section-title">Selection</h2>
          <p className="mt-1 text-[13px]">
            <strong className="tabular-nums" data-testid="selection-count">
              {formatCount(preview.count)}
            </strong>{" "}
            trajector{preview.count === 1 ? "y" : "ies"}: {preview.description}.{" "}
            <Link className="link" href={listLink}>
              {activeFilterCount({ ...filter, sort: "id", dir: "desc", page: 1, pageSize: 50 })
                ? "Change the filters"
                : "Narrow it down with the trajectory list's filters"}
            </Link>
          </p>
        </section>
        <NewCampaignForm filter={filter} count={preview.count} people={people} templates={templates} evaluators={evaluators} />
      </div>
    </>
  );
}
