import type { Metadata } from "next";
import Link from "next/link";
import { ErrorPanel, PageHeader } from "../../_components/ui";
import { requirePageRole } from "../../_lib/session";
import { api } from "../../_trpc/server";
import { ImportWorkspace } from "./_components/import-workspace";

export const metadata: Metadata = { title: "Import" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ImportPage({ searchParams }: Props) {
  const { allowed } = await requirePageRole("researcher");
  if (!allowed) {
    return <ErrorPanel title="Researchers only" message="Importing trajectories is for researchers and admins. Your labelling queues are under Annotate." />;
  }
  const raw = (await searchParams).job;
  const job = Number(Array.isArray(raw) ? raw[0] : raw);
  const caller = await api();
  const [options, recent] = await Promise.all([caller.imports.formOptions(), caller.imports.recent()]);
  return (
    <>
      <PageHeader
        title="Import trajectories"
        subtitle="Upload a .zip of agent runs (WebVoyager, VisualWebArena, SeeAct, BrowserGym, AgentRewardBench, Online-Mind2Web, Browser Use, ATIF or a Verdict bundle); the format is recognised for you"
        actions={
          options.canImportServerPaths ? (
            <Link className="btn" href="/import/duplicates" title="Merge trajectories earlier imports stored twice">
              Duplicates
            </Link>
          ) : undefined
        }
      />
      <ImportWorkspace options={options} recent={recent} initialJobId={Number.isInteger(job) && job > 0 ? job : null} />
    </>
  );
}
