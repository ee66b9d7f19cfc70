"use client";
/**
 * A campaign page's controls: annotators in and out, settings (status, blind, k, reservation), and importing
 * labels made elsewhere from a CSV.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../../_trpc/client";
import { WaitingForWorker } from "../../../_components/waiting-for-worker";

type Person = inferRouterOutputs<AppRouter>["accounts"]["directory"][number];

function useRefreshAfter() {
  const router = useRouter();
  const [error, setError] = useState("");
  const run = async (f: () => Promise<unknown>) => {
    setError("");
    try {
      await f();
      router.refresh();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return { error, run };
}

export function AnnotatorPicker({ campaignId, people, members }: { campaignId: number; people: Person[]; members: string[] }) {
  const trpc = useTRPC();
  const setAnnotators = useMutation(trpc.campaigns.setAnnotators.mutationOptions());
  const { error, run } = useRefreshAfter();
  const inCampaign = new Set(members);
  return (
    <section className="panel flex flex-col gap-2 px-4 py-3">
      <h2 className="section-title">Annotators ({members.length})</h2>
      <div className="grid gap-1 sm:grid-cols-2">
        {people.map((p) => (
          <label key={p.id} className="flex items-center gap-2 text-[12.5px]">
            <input
              type="checkbox"
              className="accent-indigo-600"
              checked={inCampaign.has(p.id)}
              disabled={setAnnotators.isPending}
              onChange={(e) => run(() => setAnnotators.mutateAsync({ id: campaignId, ...(e.target.checked ? { add: [p.id] } : { remove: [p.id] }) }))}
            />
            {p.name} <span className="text-zinc-500">({p.role})</span>
          </label>
        ))}
      </div>
      <p className="text-2xs text-zinc-500">Removing someone keeps their labels; they just get no more trajectories.</p>
      {error && <p className="text-[12px] text-rose-700">{error}</p>}
    </section>
  );
}

export function CampaignActions({ campaign }: { campaign: { id: number; status: string; blind: boolean; annotatorsPerItem: number; reservationMinutes: number } }) {
  const trpc = useTRPC();
  const update = useMutation(trpc.campaigns.update.mutationOptions());
  const { error, run } = useRefreshAfter();
  const [k, setK] = useState(campaign.annotatorsPerItem);
  const [minutes, setMinutes] = useState(campaign.reservationMinutes);
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3">
      <h2 className="section-title">Settings</h2>
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Annotators per trajectory
          <input type="number" min={1} max={20} value={k} onChange={(e) => setK(Number(e.target.value))} className="field w-24" />
        </label>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Reservation (min)
          <input type="number" min={1} max={1440} value={minutes} onChange={(e) => setMinutes(Number(e.target.value))} className="field w-24" />
        </label>
        <button
          type="button"
          className="btn"
          disabled={update.isPending || (k === campaign.annotatorsPerItem && minutes === campaign.reservationMinutes)}
          onClick={() => run(() => update.mutateAsync({ id: campaign.id, annotatorsPerItem: k, reservationMinutes: minutes }))}
        >
          Apply
        </button>
      </div>
      <div className="flex flex-wrap gap-2">
        <button type="button" className="btn" disabled={update.isPending} onClick={() => run(() => update.mutateAsync({ id: campaign.id, blind: !campaign.blind }))}>
          {campaign.blind ? "Turn blind labelling off" : "Make labelling blind"}
        </button>
        <button
          type="button"
          className="btn"
          disabled={update.isPending}
          onClick={() => run(() => update.mutateAsync({ id: campaign.id, status: campaign.status === "active" ? "closed" : "active" }))}
        >
          {campaign.status === "active" ? "Close the campaign" : "Reopen the campaign"}
        </button>
      </div>
      <p className="text-2xs text-zinc-500">Changing k re-evaluates every item: complete ones may become open again or be consolidated.</p>
      {error && <p className="text-[12px] text-rose-700">{error}</p>}
    </section>
  );
}

export function ImportLabelsForm({ campaignId }: { campaignId: number }) {
  const trpc = useTRPC();
  const presets = useQuery(trpc.campaigns.importPresets.queryOptions());
  const importLabels = useMutation(trpc.campaigns.importLabels.mutationOptions());
  const router = useRouter();
  const [started, setStarted] = useState<{ jobId: number; dryRun: boolean } | null>(null);
  const [error, setError] = useState("");
  // The import runs on a worker: poll it until it has ended.
  const job = useQuery({
    ...trpc.campaigns.importLabelsJob.queryOptions({ id: started?.jobId ?? 0 }),
    enabled: started !== null,
    refetchInterval: (q) => (q.state.data?.status === "queued" || q.state.data?.status === "running" || q.state.data === undefined ? 500 : false),
  });
  const r = job.data?.result ?? null;
  const report = r
    ? `${started?.dryRun ? "Dry run, nothing written. " : ""}${r.rows} rows: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.skipped} skipped, ${r.unmatchedCount} unmatched${
        r.unmatched.length ? ` (first: line ${r.unmatched[0]!.line}, ${r.unmatched[0]!.reason})` : ""
      }.`
    : "";
  const running = importLabels.isPending || (started !== null && (job.data === undefined || job.data.status === "queued" || job.data.status === "running"));
  const shownError = error || job.error?.message || job.data?.error || "";
  useEffect(() => {
    if (job.data?.status === "succeeded" && !started?.dryRun) router.refresh();
  }, [job.data?.status, started?.dryRun, router]);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const file = f.get("file") as File | null;
    const preset = presets.data?.find((p) => p.name === f.get("preset"));
    if (!file || !file.size || !preset) return;
    setError("");
    setStarted(null);
    try {
      const dryRun = f.get("dryRun") === "on";
      const { jobId } = await importLabels.mutateAsync({ csv: await file.text(), source: file.name, mapping: preset.mapping, campaign: { id: campaignId }, dryRun });
      setStarted({ jobId, dryRun });
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <section className="panel px-4 py-3">
      <h2 className="section-title">Import labels from a CSV</h2>
      <form onSubmit={onSubmit} className="mt-2 flex flex-wrap items-end gap-2 text-[12px]">
        <label className="flex flex-col gap-1 font-medium text-zinc-700">
          File
          <input type="file" name="file" accept=".csv,text/csv" required className="text-[12px]" />
        </label>
        <label className="flex flex-col gap-1 font-medium text-zinc-700">
          Columns
          <select name="preset" className="field">
            {(presets.data ?? []).map((p) => (
              <option key={p.name} value={p.name} title={p.description}>
                {p.description}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" name="dryRun" defaultChecked className="accent-indigo-600" /> Dry run
        </label>
        <button type="submit" className="btn" disabled={running || !presets.data}>
          {running ? "Importing…" : "Import"}
        </button>
      </form>
      <p className="mt-1 text-2xs text-zinc-500">Other column layouts: npm run cli -- labels import FILE --mapping mapping.json (see docs/guide/label-files.md).</p>
      {job.data?.status === "queued" && <WaitingForWorker since={job.data.createdAt} what="this import" />}
      {report && <p className="mt-1 text-[12px] text-emerald-700" data-testid="label-import-report">{report}</p>}
      {shownError && <p className="mt-1 text-[12px] text-rose-700" role="alert">{shownError}</p>}
    </section>
  );
}
