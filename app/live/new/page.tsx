import type { Metadata } from "next";
import { PageHeader } from "../../_components/ui";
import { api } from "../../_trpc/server";
import { NewRunForm, type NewRunPreset } from "../_components/new-run-form";

export const metadata: Metadata = { title: "New live run" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export default async function NewLiveRunPage({ searchParams }: Props) {
  const sp = await searchParams;
  const options = await (await api()).liveRuns.formOptions();
  // `?set=3` preselects a task set; `?from=trajectories&run=2&outcome=error…` the trajectory list's filters.
  const set = Number(first(sp.set));
  const preset: NewRunPreset =
    first(sp.from) === "trajectories"
      ? {
          source: "trajectories",
          filter: new URLSearchParams(Object.entries(sp).flatMap(([k, v]) => (k === "from" || v === undefined ? [] : [[k, first(v)!]]))).toString(),
        }
      : Number.isInteger(set) && set > 0
        ? { source: "taskSet", taskSetId: set }
        : { source: "demo" };
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/live", label: "Live runs" }]}
        title="New live run"
        subtitle="Choose tasks, a policy, limits and safety rules; a worker picks the run up at once"
      />
      <NewRunForm options={options} preset={preset} />
    </>
  );
}
