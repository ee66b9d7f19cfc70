import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "../../_components/ui";
import { forbidUnlessRole } from "../../_lib/session";
import { api } from "../../_trpc/server";
import { ImportWorkspace } from "./_components/import-workspace";

export const metadata: Metadata = { title: "Import" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ImportPage({ searchParams }: Props) {
  // The same 403 page as every other page a role may not open (HTTP 403, a way back to the annotator's queues).
  await forbidUnlessRole("researcher");
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
