import type { Metadata } from "next";
import { ErrorPanel, PageHeader } from "../../../_components/ui";
import { requirePageRole } from "../../../_lib/session";
import { DuplicatesWorkspace } from "./_components/duplicates-workspace";

export const metadata: Metadata = { title: "Duplicate trajectories" };

/** Admins merge trajectories earlier imports stored twice; the page opens on what a merge would do (a worker works it out). */
export default async function DuplicatesPage() {
  const { allowed } = await requirePageRole("admin");
  if (!allowed) return <ErrorPanel title="Admins only" message="Merging duplicate trajectories changes every campaign that holds them, so it is for admins." />;
  return (
    <>
      <PageHeader
        title="Duplicate trajectories"
        subtitle="Trajectories an earlier import stored twice (the same zip uploaded twice, a folder imported from two places), merged into one with every label and verdict"
        crumbs={[{ href: "/import", label: "Import" }]}
      />
      <div className="flex w-full flex-col gap-4 px-6 py-4">
        <DuplicatesWorkspace />
      </div>
    </>
  );
}
