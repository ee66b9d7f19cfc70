"use client";
/**
 * A campaign page's controls: annotators in and out, settings (status, blind, k, reservation), and importing
 * labels made elsewhere from a CSV.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterInputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../../_trpc/client";
import { WaitingForWorker } from "../../../_components/waiting-for-worker";
import { useRequestedJob } from "../../../_lib/use-requested-job";
import { sayingProblem } from "../../../_lib/say-problem";
import { PeopleChecks, type Person } from "./people-checks";

function useRefreshAfter() {
  const router = useRouter();
  const [error, setError] = useState("");
  const run = (f: () => Promise<unknown>) =>
    sayingProblem(setError, async () => {
      await f();
      router.refresh();
    });
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
      <PeopleChecks
        people={people}
        isChosen={(id) => inCampaign.has(id)}
        disabled={setAnnotators.isPending}
        onToggle={(id, on) => run(() => setAnnotators.mutateAsync({ id: campaignId, ...(on ? { add: [id] } : { remove: [id] }) }))}
        withRole
      />
      <p className="text-2xs text-zinc-500">Removing someone keeps their labels; they just get no more trajectories.</p>
      {error && <p className="text-[12px] text-rose-700">{error}</p>}
    </section>
  );
}

export function CampaignActions({
  campaign,
}: {
  campaign: { id: number; status: string; blind: boolean; annotatorsPerItem: number; reservationMinutes: number };
}) {
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
        <button
          type="button"
          className="btn"
          disabled={update.isPending}
          onClick={() => run(() => update.mutateAsync({ id: campaign.id, blind: !campaign.blind }))}
        >
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

/** A workbook's bytes as base64 (the form sends files inside a JSON request). */
function fileAsBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

type LabelMapping = inferRouterInputs<AppRouter>["campaigns"]["importLabels"]["mapping"];

const isWorkbookName = (name: string) => /\.xlsx$/i.test(name);
const CUSTOM_MAPPING = "(custom)";
const MAPPING_EXAMPLE = `{
  "taskId": "task_id",
  "verdictValues": { "1": "success", "0": "failure" },
  "labels": [
    { "annotator": "Evaluator1", "verdict": "Overall1" },
    { "annotator": "Evaluator2", "verdict": "Overall2" }
  ]
}`;

/** The mapping the form describes: a preset's, or the JSON typed for another layout (with what is wrong with it). */
function chosenMapping(choice: string, json: string, presets: { name: string; mapping: unknown }[] | undefined): { mapping: unknown } | { problem: string } {
  if (choice !== CUSTOM_MAPPING) {
    const preset = presets?.find((p) => p.name === choice);
    return preset ? { mapping: preset.mapping } : { problem: "choose how the columns are laid out" };
  }
  try {
    const mapping: unknown = JSON.parse(json);
    if (typeof mapping !== "object" || mapping === null || Array.isArray(mapping)) return { problem: "the mapping must be a JSON object of column names" };
    return { mapping };
  } catch (e) {
    return { problem: `the mapping is not valid JSON: ${(e as Error).message}` };
  }
}

export function ImportLabelsForm({ campaignId }: { campaignId: number }) {
  const trpc = useTRPC();
  const presets = useQuery(trpc.campaigns.importPresets.queryOptions());
  // The import runs on a worker: the form queues it and polls it until it has ended.
  const job = useRequestedJob(trpc.campaigns.importLabels.mutationOptions(), (id) => trpc.campaigns.importLabelsJob.queryOptions({ id }));
  const router = useRouter();
  const [error, setError] = useState("");
  const [workbook, setWorkbook] = useState(false);
  const [choice, setChoice] = useState("");
  const [mappingProblem, setMappingProblem] = useState("");
  const dryRun = job.start.variables?.dryRun ?? false;
  const r = job.result;
  const report = r
    ? `${dryRun ? "Dry run, nothing written. " : ""}${r.sheet ? `Sheet “${r.sheet}”: ` : ""}${r.rows} rows: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.skipped} skipped, ${r.unmatchedCount} unmatched${
        r.unmatched.length ? ` (first: line ${r.unmatched[0]!.line}, ${r.unmatched[0]!.reason})` : ""
      }.`
    : "";
  const running = job.working;
  const shownError = error || job.failure || "";
  const selected = choice || presets.data?.[0]?.name || "";
  useEffect(() => {
    if (job.status === "succeeded" && !dryRun) router.refresh();
  }, [job.status, dryRun, router]);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const file = f.get("file") as File | null;
    if (!file || !file.size) return;
    const mapping = chosenMapping(selected, String(f.get("mapping") ?? ""), presets.data);
    setMappingProblem("problem" in mapping ? mapping.problem : "");
    if ("problem" in mapping) return;
    setError("");
    job.start.reset();
    try {
      const dryRunAsked = f.get("dryRun") === "on";
      const sheet = String(f.get("sheet") ?? "").trim();
      // The mapping is checked by the server against its schema, which names what is wrong.
      const common = { source: file.name, mapping: mapping.mapping as LabelMapping, campaign: { id: campaignId }, dryRun: dryRunAsked };
      await job.start.mutateAsync(
        isWorkbookName(file.name) ? { ...common, xlsxBase64: await fileAsBase64(file), ...(sheet ? { sheet } : {}) } : { ...common, csv: await file.text() },
      );
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <section className="panel px-4 py-3">
      <h2 className="section-title">Import labels from a CSV or a workbook</h2>
      <form onSubmit={onSubmit} className="mt-2 flex flex-wrap items-end gap-2 text-[12px]">
        <label className="flex flex-col gap-1 font-medium text-zinc-700">
          File
          <input
            type="file"
            name="file"
            accept=".csv,text/csv,.xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            required
            className="text-[12px]"
            onChange={(e) => setWorkbook(isWorkbookName(e.currentTarget.files?.[0]?.name ?? ""))}
          />
        </label>
        {workbook && (
          <label className="flex flex-col gap-1 font-medium text-zinc-700">
            Sheet
            <input name="sheet" className="field w-44" placeholder="the only one with data" maxLength={200} />
          </label>
        )}
        <label className="flex flex-col gap-1 font-medium text-zinc-700">
          Columns
          <select name="preset" className="field max-w-sm" value={selected} onChange={(e) => setChoice(e.currentTarget.value)}>
            {(presets.data ?? []).map((p) => (
              <option key={p.name} value={p.name} title={p.description}>
                {p.description}
              </option>
            ))}
            <option value={CUSTOM_MAPPING}>Another layout: a column mapping (JSON)</option>
          </select>
        </label>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" name="dryRun" defaultChecked className="accent-indigo-600" /> Dry run
        </label>
        <button type="submit" className="btn" disabled={running || !presets.data}>
          {running ? "Importing…" : "Import"}
        </button>
        {selected === CUSTOM_MAPPING && (
          <div className="flex w-full flex-col gap-1">
            <label htmlFor="label-mapping" className="font-medium text-zinc-700">
              Mapping (JSON)
            </label>
            <textarea
              id="label-mapping"
              name="mapping"
              rows={7}
              required
              spellCheck={false}
              className="field h-40 py-1.5 font-mono text-[11px]"
              placeholder={MAPPING_EXAMPLE}
              aria-invalid={mappingProblem ? true : undefined}
              aria-describedby="label-mapping-help"
            />
            <p id="label-mapping-help" className={mappingProblem ? "text-rose-700" : "text-zinc-500"} data-testid="label-mapping-help">
              {mappingProblem ||
                "Long tables name an annotator and a verdict column; wide tables (several evaluators on a row) list each pair under labels. The fields are described in docs/guide/label-files.md."}
            </p>
          </div>
        )}
      </form>
      {job.queuedSince && <WaitingForWorker since={job.queuedSince} what="this import" />}
      {report && (
        <p className="mt-1 text-[12px] text-emerald-700" data-testid="label-import-report">
          {report}
        </p>
      )}
      {shownError && (
        <p className="mt-1 text-[12px] text-rose-700" role="alert">
          {shownError}
        </p>
      )}
    </section>
  );
}
