"use client";
/**
 * The Import page: upload a .zip (or, for admins, name a folder on the server), follow the import job's progress,
 * then read its report — what was created, updated or already there, what was skipped and why, what was
 * repaired — with links to the new trajectories and their runs. The job id lives in the URL (`?job=`), so a
 * reload or a shared link shows the same import.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { AppRouter } from "@/server/api/root";
import { runLabels } from "@/server/domain/catalog/run-labels";
import { useTRPC } from "../../../_trpc/client";
import { formatCount, formatDate, Stat, TrajectoryLink } from "../../../_components/ui";
import { WaitingForWorker } from "../../../_components/waiting-for-worker";
import { ProgressBar } from "../../../_components/progress-bar";
import { FolderUpload } from "./folder-upload";
import { DenseTable, right } from "../../../_components/table";

type Outputs = inferRouterOutputs<AppRouter>["imports"];
type Options = Outputs["formOptions"];
type JobView = Outputs["status"];

const mb = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;

/** A progress bar with its label written under it. */
function LabelledProgress({ fraction, label }: { fraction: number | null; label: string }) {
  return (
    <div>
      <ProgressBar value={fraction} label={label} />
      <p className="mt-1 truncate text-[12px] text-zinc-600">{label}</p>
    </div>
  );
}

function uploadZip(file: File, format: string, onProgress: (fraction: number) => void): Promise<number> {
  // XMLHttpRequest, not fetch: it reports upload progress.
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    const q = new URLSearchParams({ name: file.name });
    if (format !== "auto") q.set("format", format);
    xhr.open("POST", `/api/imports?${q}`);
    xhr.setRequestHeader("Content-Type", "application/zip");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body: { jobId?: number; error?: string } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // fall through to the status text
      }
      if (xhr.status === 202 && body.jobId) resolve(body.jobId);
      else reject(new Error(body.error ?? `Upload failed (${xhr.status} ${xhr.statusText})`));
    };
    xhr.onerror = () => reject(new Error("Upload failed: the server could not be reached"));
    xhr.send(file);
  });
}

export function ImportWorkspace({ options, recent, initialJobId }: { options: Options; recent: JobView[]; initialJobId: number | null }) {
  const router = useRouter();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // The list refreshes while any import in it is still under way, and when a new one starts.
  const recentQ = useQuery({
    ...trpc.imports.recent.queryOptions(),
    initialData: recent,
    refetchInterval: (q) => (q.state.data?.some((j) => j.status === "queued" || j.status === "running") ? 1_000 : false),
  });
  const [jobId, setJobId] = useState<number | null>(initialJobId);
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState("auto");
  const [serverPath, setServerPath] = useState("");
  const [uploading, setUploading] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const follow = (id: number) => {
    setJobId(id);
    setError(null);
    void queryClient.invalidateQueries(trpc.imports.recent.queryFilter());
    router.replace(`/import?job=${id}`, { scroll: false });
  };

  const fromPath = useMutation(
    trpc.imports.startFromPath.mutationOptions({
      onSuccess: (r) => follow(r.jobId),
      onError: (e) => setError(e.message),
    }),
  );

  async function onUpload(e: FormEvent) {
    e.preventDefault();
    if (!file) return setError("Choose a .zip file first");
    if (!file.name.toLowerCase().endsWith(".zip")) return setError(`${file.name}: only .zip files can be uploaded`);
    if (file.size > options.maxUploadBytes) {
      return setError(`${file.name} is ${mb(file.size)}; uploads are limited to ${mb(options.maxUploadBytes)}. Import larger sources with the CLI.`);
    }
    setError(null);
    setUploading(0);
    const form = e.currentTarget as HTMLFormElement;
    try {
      follow(await uploadZip(file, format, setUploading));
      // The archive is in: clear the choice, so a second click cannot upload it again by accident.
      form.reset();
      setFile(null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setUploading(null);
    }
  }

  return (
    <div className="mx-auto flex w-full max-w-5xl flex-col gap-4 px-6 py-4">
      <section className="panel px-4 py-3" aria-labelledby="upload-title">
        <h2 id="upload-title" className="section-title">
          Upload a .zip
        </h2>
        <form className="mt-2 flex flex-wrap items-end gap-3" onSubmit={onUpload}>
          <label className="flex min-w-64 flex-1 flex-col gap-1 text-[12px] text-zinc-600">
            Archive
            <input
              type="file"
              accept=".zip,application/zip"
              className="field"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
              disabled={uploading !== null}
            />
          </label>
          <label className="flex flex-col gap-1 text-[12px] text-zinc-600">
            Format
            <select className="field" value={format} onChange={(e) => setFormat(e.target.value)}>
              <option value="auto">Recognise automatically</option>
              {options.formats.map((f) => (
                <option key={f.format} value={f.format} title={f.description}>
                  {f.format}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="btn btn-on" disabled={uploading !== null || !file}>
            {uploading !== null ? "Uploading…" : "Upload and import"}
          </button>
        </form>
        <p className="mt-2 text-[12px] text-zinc-500">
          Up to {mb(options.maxUploadBytes)} per upload; an archive may hold up to {formatCount(options.zip.maxEntries)} files and expand to{" "}
          {mb(options.zip.maxTotalBytes)}. Trajectories that cannot be read are skipped with the reason; the rest are imported.
        </p>
        {uploading !== null && (
          <div className="mt-3">
            <LabelledProgress fraction={uploading} label={`Uploading ${file?.name ?? ""}: ${Math.round(uploading * 100)}%`} />
          </div>
        )}
      </section>

      <FolderUpload format={format} onStarted={follow} />

      {options.canImportServerPaths && (
        <section className="panel px-4 py-3" aria-labelledby="path-title">
          <h2 id="path-title" className="section-title">
            Import a folder on the server (admins)
          </h2>
          {options.importRoot ? (
            <form
              className="mt-2 flex flex-wrap items-end gap-3"
              onSubmit={(e) => {
                e.preventDefault();
                fromPath.mutate({ path: serverPath, format: format === "auto" ? undefined : format });
              }}
            >
              <label className="flex min-w-64 flex-1 flex-col gap-1 text-[12px] text-zinc-600">
                Path under {options.importRoot}
                <input className="field font-mono" value={serverPath} onChange={(e) => setServerPath(e.target.value)} placeholder="webvoyager/results" />
              </label>
              <button type="submit" className="btn" disabled={fromPath.isPending || !serverPath.trim()}>
                {fromPath.isPending ? "Starting…" : "Import path"}
              </button>
            </form>
          ) : (
            <p className="mt-1 text-[12px] text-zinc-600">
              Off: set <code className="font-mono">VERDICT_IMPORT_ROOT</code> to the folder admins may import from, then restart the server.
            </p>
          )}
        </section>
      )}

      {error && (
        <div role="alert" className="rounded-lg border border-rose-200 bg-rose-50 px-4 py-3 text-[13px] text-rose-800">
          {error}
        </div>
      )}

      {jobId !== null && <ImportJob id={jobId} />}

      {/* Nothing to say about earlier imports while the first one is under way above. */}
      {(recentQ.data.length > 0 || (jobId === null && uploading === null)) && <RecentImports recent={recentQ.data} current={jobId} onOpen={follow} />}
    </div>
  );
}

function ImportJob({ id }: { id: number }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.imports.status.queryOptions({ id }),
    refetchInterval: (query) => {
      const s = query.state.data?.status;
      return s === "queued" || s === "running" || s === undefined ? 500 : false;
    },
  });
  if (q.isPending) {
    return (
      <section className="panel px-4 py-3" aria-busy="true">
        <LabelledProgress fraction={null} label="Looking up the import…" />
      </section>
    );
  }
  if (q.isError) {
    return (
      <div role="alert" className="rounded-lg border border-rose-200 bg-rose-50 px-4 py-3 text-[13px] text-rose-800">
        Cannot show import {id}: {q.error.message}
      </div>
    );
  }
  const job = q.data;
  return (
    <section className="panel px-4 py-3" aria-labelledby="job-title" data-testid="import-job">
      <h2 id="job-title" className="text-sm font-semibold text-zinc-900">
        Import of <span className="font-mono">{job.source}</span>
      </h2>
      {(job.status === "queued" || job.status === "running") && <RunningJob job={job} />}
      {job.status === "failed" || job.status === "cancelled" ? <FailedJob job={job} /> : null}
      {job.report && <ImportReportView report={job.report} />}
    </section>
  );
}

function RunningJob({ job }: { job: JobView }) {
  const p = job.progress;
  if (!p || job.status === "queued") {
    return (
      <div className="mt-2">
        <LabelledProgress fraction={null} label="Waiting for a worker to start it…" />
        {job.status === "queued" && <WaitingForWorker since={job.createdAt} what="this import" />}
      </div>
    );
  }
  if (p.phase === "extracting")
    return (
      <div className="mt-2">
        <LabelledProgress fraction={null} label="Unpacking the archive…" />
      </div>
    );
  const fraction = p.total ? Math.min(1, p.done / p.total) : null;
  const label = p.total ? `${formatCount(p.done)} of ${formatCount(p.total)} read — ${p.label}` : `${formatCount(p.done)} read — ${p.label}`;
  return (
    <div className="mt-2">
      <LabelledProgress fraction={fraction} label={label} />
    </div>
  );
}

function FailedJob({ job }: { job: JobView }) {
  return (
    <div role="alert" className="mt-2 rounded-md border border-rose-200 bg-rose-50 px-3 py-2">
      <p className="text-[13px] font-medium text-rose-800">Nothing was imported</p>
      <p className="mt-0.5 font-mono text-[12px] break-words whitespace-pre-wrap text-rose-700">{job.error}</p>
      {job.skipped.length > 1 && <SkippedList skipped={job.skipped} />}
    </div>
  );
}

type Report = NonNullable<JobView["report"]>;

function SkippedList({ skipped }: { skipped: Report["skipped"] }) {
  return (
    <ul className="mt-1 space-y-1 text-[12px]" data-testid="import-skipped">
      {skipped.map((s, i) => (
        <li key={i} className="break-words">
          <span className="font-mono text-zinc-800">{s.path}</span>: <span className="text-rose-700">{s.reason}</span>
        </li>
      ))}
    </ul>
  );
}

/** "30 success, 11 failure" in a fixed order. */
function verdictCounts(counts: Record<string, number>): string {
  const order = ["success", "failure", "unparseable", "not_evaluable"];
  return (
    order
      .filter((k) => counts[k])
      .map((k) => `${counts[k]} ${k.replace("_", " ")}`)
      .join(", ") || "no verdicts"
  );
}

/** Each file of verdicts the import read: how many of its blocks matched a trajectory, and why the others did not. */
function EvaluatorLogsView({ report }: { report: Report }) {
  // Reports of imports made before logs were reported have none.
  const logs = report.evaluatorLogs ?? [];
  if (!logs.length) return null;
  return (
    <div className="rounded-md border border-zinc-200 bg-white px-3 py-2" data-testid="import-evaluator-logs">
      <h3 className="text-[12px] font-semibold text-zinc-800">
        Evaluator logs ({logs.length}) · {formatCount(report.verdicts)} verdicts stored
      </h3>
      <ul className="mt-1 space-y-2 text-[12px]">
        {logs.map((log, i) => (
          <li key={i} className="break-words">
            <span className="font-mono text-zinc-800">{log.file}</span>: {log.evaluator}
            {log.run && <span className="text-zinc-500"> ({log.run.replace(/^run:/, "run ")})</span>}:{" "}
            <strong className={log.matched < log.blocks ? "text-amber-900" : "text-zinc-900"}>
              {log.matched} of {log.blocks} blocks matched
            </strong>{" "}
            ({verdictCounts(log.verdicts)})
            {log.unmatched.length > 0 && (
              <ul className="mt-1 ml-4 list-disc space-y-0.5 text-zinc-700">
                {log.unmatched.slice(0, 20).map((u, j) => (
                  <li key={j}>
                    <span className="font-mono">{u.block}</span>: {u.reason}
                  </li>
                ))}
                {log.unmatched.length > 20 && <li>… and {log.unmatched.length - 20} more not matched</li>}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The report's runs by name, less the path prefix they share (run ids until the names arrive). */
function useRunLabels(runIds: number[]): (id: number) => string {
  const trpc = useTRPC();
  const { data } = useQuery({ ...trpc.runs.list.queryOptions(), enabled: runIds.length > 0 });
  const names = new Map((data ?? []).filter((r) => runIds.includes(r.id)).map((r) => [r.id, r.name]));
  const labels = runLabels([...names.values()]);
  return (id) => labels.get(names.get(id) ?? "") ?? `run ${id}`;
}

function ImportReportView({ report }: { report: Report }) {
  const runs = [...new Set(report.trajectories.map((t) => t.runId))];
  const runLabel = useRunLabels(runs);
  const t = report.tasks;
  return (
    <div className="mt-2 flex flex-col gap-3" data-testid="import-report">
      <p className="text-[13px] text-zinc-700">
        {report.skipped.length ? "Imported with some trajectories skipped" : "Imported"} as <strong>{report.format}</strong>.
      </p>
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-5">
        <Stat label="Created" value={report.created} />
        <Stat label="Updated" value={report.updated} />
        <Stat label="Unchanged" value={report.unchanged} hint="Already imported with the same content" />
        <Stat label="Skipped" value={report.skipped.length} hint="Could not be read; see the reasons below" />
        <Stat label="Warnings" value={report.warnings.length} hint="Imported with a repair" />
      </div>
      <p className="text-[12px] text-zinc-600">
        Tasks: {t.created} created, {t.updated} updated, {t.unchanged} unchanged · screenshots added: {formatCount(report.screenshotsAdded)}
        {runs.length > 0 && (
          <>
            {" "}
            · runs:{" "}
            {runs.map((r, i) => (
              <span key={r}>
                {i > 0 && ", "}
                <Link className="link" href={`/runs/${r}`} data-testid="report-run">
                  {runLabel(r)}
                </Link>
              </span>
            ))}
          </>
        )}
      </p>
      {report.skipped.length > 0 && (
        <div className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2">
          <h3 className="text-[12px] font-semibold text-rose-800">Skipped ({report.skipped.length})</h3>
          <SkippedList skipped={report.skipped} />
        </div>
      )}
      {report.warnings.length > 0 && (
        <div className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2" data-testid="import-warnings">
          <h3 className="text-[12px] font-semibold text-amber-900">Imported with a repair ({report.warnings.length})</h3>
          <ul className="mt-1 space-y-1 text-[12px]">
            {report.warnings.map((w, i) => (
              <li key={i} className="break-words">
                <span className="font-mono text-zinc-800">{w.path}</span>: {w.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <EvaluatorLogsView report={report} />
      {report.trajectories.length > 0 && (
        <div className="overflow-x-auto">
          <DenseTable columns={["Trajectory", "Task", "Run", right("Steps"), "Result"]} cellClassName="text-left">
            {report.trajectories.map((tr) => (
              <tr key={tr.id}>
                <td>
                  <TrajectoryLink id={tr.id} />
                </td>
                <td className="font-mono">{tr.externalTaskId}</td>
                <td>
                  <Link className="link" href={`/runs/${tr.runId}`}>
                    {runLabel(tr.runId)}
                  </Link>
                </td>
                <td className="text-right tabular-nums">{tr.steps}</td>
                <td>
                  {tr.status}
                  {tr.warnings.length > 0 && (
                    <span className="ml-1 text-amber-800">
                      · {tr.warnings.length} warning{tr.warnings.length > 1 ? "s" : ""}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </DenseTable>
        </div>
      )}
    </div>
  );
}

function RecentImports({ recent, current, onOpen }: { recent: JobView[]; current: number | null; onOpen: (id: number) => void }) {
  if (recent.length === 0) {
    return <p className="text-[12px] text-zinc-500">No imports from the dashboard yet. Imports made with the CLI are listed under Runs.</p>;
  }
  return (
    <section className="panel px-4 py-3" aria-labelledby="recent-title">
      <h2 id="recent-title" className="section-title">
        Recent imports
      </h2>
      <ul className="mt-1 divide-y divide-zinc-100 text-[12.5px]">
        {recent.map((j) => (
          <li key={j.id} className="flex items-center justify-between gap-3 py-1">
            <button type="button" className={`link truncate text-left ${j.id === current ? "font-semibold" : ""}`} onClick={() => onOpen(j.id)}>
              {j.source}
            </button>
            <span className="shrink-0 text-zinc-500">
              {j.report ? `${j.report.created} created, ${j.report.skipped.length} skipped` : j.status} · {formatDate(j.createdAt)}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
