"use client";
/**
 * One alignment study, top to bottom in the order the loop is worked: the split, running a version (version 1
 * first), a new version from the calibration part's disagreements, and the versions compared on the held-out part.
 */
import { useSuspenseQuery } from "@tanstack/react-query";
import { formatCount, formatDate } from "../../../_components/ui";
import { JudgesPageHeader } from "./judges-header";
import { useTRPC } from "../../../_trpc/client";
import { AlignmentRun } from "./alignment-run";
import { AlignmentSplit } from "./alignment-split";
import { AlignmentVersionForm } from "./alignment-version-form";
import { AlignmentVersions } from "./alignment-versions";

export function AlignmentStudyView({ id }: { id: number }) {
  const trpc = useTRPC();
  const { data: view } = useSuspenseQuery(trpc.judge.alignment.versions.queryOptions({ id }));
  const a = view.alignment;
  return (
    <>
      <JudgesPageHeader
        crumbs={[{ href: "/judges/alignment", label: "Aligning judges" }]}
        title={`Alignment study ${a.name}`}
        subtitle={`${view.configName} on ${view.campaignName} · k = ${a.k} · ${formatCount(view.calibration)} calibration and ${formatCount(view.heldOut)} held-out items · created ${formatDate(a.createdAt)}`}
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <AlignmentSplit id={id} />
        <AlignmentRun view={view} />
        <AlignmentVersionForm key={view.versions.length} view={view} />
        <AlignmentVersions view={view} />
      </div>
    </>
  );
}
