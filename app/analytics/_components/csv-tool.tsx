"use client";
/**
 * Agreement of a CSV of ratings: upload, pick the columns, and get the same analysis as
 * `npm run cli -- agreement csv` (computed on the server from the exact strings in the file, by a worker: the page
 * starts the job and polls for its result).
 */
import { useMemo, useState } from "react";
import { useTRPC } from "../../_trpc/client";
import { cliCommand, guessColumns, prepareCsvReport, previewCsv } from "../_lib/csv";
import { HeatMatrix } from "./heat-matrix";
import { IntervalNote } from "./interval-note";
import { StatCards } from "./stat-cards";
import { TablePanel } from "./figure";
import { Options } from "../../_components/field";
import { WaitingForWorker } from "../../_components/waiting-for-worker";
import { useRequestedJob } from "../../_lib/use-requested-job";

// The server's limit on the CSV's text (analytics.csvAgreement), which leaves room for JSON escaping under its upload
// body limit (VERDICT_MAX_UPLOAD_BYTES, 12 MiB).
const MAX_BYTES = 10_000_000;

/** The analysis as a job: started by `start`, polled until it has ended; its result, or why it failed. */
function useCsvAgreementJob() {
  const trpc = useTRPC();
  const job = useRequestedJob(trpc.analytics.csvAgreement.mutationOptions(), (id) => trpc.analytics.csvAgreementJob.queryOptions({ id }));
  return { ...job, computing: job.working };
}

export function CsvAgreementTool() {
  const { start, computing, result, failure, queuedSince } = useCsvAgreementJob();
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [delimiter, setDelimiter] = useState(",");
  const [item, setItem] = useState<string[]>([]);
  const [rater, setRater] = useState("");
  const [label, setLabel] = useState("");
  const [minShared, setMinShared] = useState(10);

  const preview = useMemo(() => (file ? previewCsv(file.text, delimiter, file.name) : null), [file, delimiter]);

  const load = async (f: File | undefined) => {
    start.reset();
    setReadError(null);
    if (!f) return;
    if (f.size > MAX_BYTES) {
      setReadError(`${f.name} is ${(f.size / 1e6).toFixed(0)} MB; the page takes up to ${MAX_BYTES / 1e6} MB (the CLI has no limit).`);
      return;
    }
    const buf = await f.arrayBuffer();
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
    } catch {
      setReadError(`${f.name} is not UTF-8 text.`);
      return;
    }
    const delim = f.name.toLowerCase().endsWith(".tsv") ? "\t" : ",";
    setDelimiter(delim);
    setFile({ name: f.name, text });
    const p = previewCsv(text, delim, f.name);
    if (!p.error) {
      const g = guessColumns(p.header);
      setItem(g.item);
      setRater(g.rater);
      setLabel(g.label);
    }
  };

  const header = preview?.header ?? [];
  const ready = file && preview && !preview.error && item.length > 0 && rater && label;
  const run = () => {
    if (!ready) return;
    start.mutate({ fileName: file.name, text: file.text, itemColumns: item, raterColumn: rater, labelColumn: label, delimiter, minSharedItems: minShared });
  };
  const report = result ? prepareCsvReport(result) : null;

  return (
    <div className="flex flex-col gap-4">
      <section className="panel px-3 py-3" aria-label="CSV file">
        <div className="flex flex-wrap items-center gap-3">
          <label className="btn cursor-pointer">
            Choose a CSV file…
            <input
              type="file"
              accept=".csv,.tsv,text/csv,text/plain"
              className="sr-only"
              data-testid="csv-file"
              onChange={(e) => void load(e.target.files?.[0])}
            />
          </label>
          {file && (
            <span className="text-[12px] text-zinc-600">
              <span className="font-mono">{file.name}</span>
              {preview && !preview.error && ` · ${preview.rowCount.toLocaleString("en-US")} rows · ${preview.header.length} columns`}
            </span>
          )}
          <label className="flex items-center gap-1 text-[12px] text-zinc-500">
            Delimiter
            <select aria-label="Delimiter" className="field" value={delimiter} onChange={(e) => setDelimiter(e.target.value)}>
              <option value=",">comma</option>
              <option value=";">semicolon</option>
              <option value={"\t"}>tab</option>
              <option value="|">pipe</option>
            </select>
          </label>
        </div>
        <p className="mt-2 text-[11.5px] text-zinc-500">
          One row per rating: which item, which rater, which label. Labels are compared exactly as written (no trimming or case folding). The file is sent to
          this server only.
        </p>
        {(readError || preview?.error) && (
          <p role="alert" className="mt-2 font-mono text-[12px] text-rose-700">
            {readError ?? preview?.error}
          </p>
        )}
      </section>

      {preview && !preview.error && (
        <section className="panel" aria-label="Columns">
          <div className="flex flex-wrap items-end gap-4 border-b border-zinc-100 px-3 py-2">
            <fieldset className="flex flex-wrap items-center gap-2 text-[12px]">
              <legend className="section-title mb-1">Item (one or more columns)</legend>
              {header.map((h) => (
                <label key={h} className="flex items-center gap-1">
                  <input type="checkbox" checked={item.includes(h)} onChange={(e) => setItem(e.target.checked ? [...item, h] : item.filter((x) => x !== h))} />
                  <span className="font-mono">{h}</span>
                </label>
              ))}
            </fieldset>
            <ColumnSelect title="Rater" columns={header} value={rater} onChange={setRater} />
            <ColumnSelect title="Label" columns={header} value={label} onChange={setLabel} />
            <label className="flex flex-col text-[12px]">
              <span className="section-title mb-1">Min. shared items for pairwise κ</span>
              <input
                aria-label="Minimum shared items"
                type="number"
                min={1}
                className="field w-24"
                value={minShared}
                onChange={(e) => setMinShared(Math.max(1, Number(e.target.value) || 1))}
              />
            </label>
            <button type="button" className="btn btn-on" disabled={!ready || computing} onClick={run}>
              {computing ? "Computing…" : "Compute agreement"}
            </button>
          </div>
          <PreviewTable header={header} rows={preview.rows} item={item} rater={rater} label={label} />
          {file && ready && (
            <pre className="border-t border-zinc-100 px-3 py-2 font-mono text-[11.5px] text-zinc-500">
              Same as: {cliCommand(file.name, item, rater, label, delimiter, minShared)}
            </pre>
          )}
        </section>
      )}

      {queuedSince && <WaitingForWorker since={queuedSince} what="this analysis" />}
      {failure && (
        <p role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 font-mono text-[12px] text-rose-700">
          {failure}
        </p>
      )}
      {report && <CsvReport report={report} minSharedItems={result!.report.minSharedItems} />}
    </div>
  );
}

/** The file's first rows under its header, the chosen columns marked. */
function PreviewTable({ header, rows, item, rater, label }: { header: string[]; rows: string[][]; item: string[]; rater: string; label: string }) {
  return (
    <div className="overflow-x-auto">
      <table className="table-dense">
        <thead>
          <tr>
            {header.map((h) => (
              <th key={h} className={item.includes(h) || h === rater || h === label ? "text-indigo-700" : undefined}>
                {h}
                {item.includes(h) ? " · item" : h === rater ? " · rater" : h === label ? " · label" : ""}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {r.map((v, j) => (
                <td key={j} className="font-mono text-[11.5px] whitespace-pre">
                  {v === "" ? <span className="text-zinc-300">(empty)</span> : v}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The analysis's result: what was left out, the figures, and κ per pair of raters as a table and a matrix. */
function CsvReport({ report, minSharedItems }: { report: NonNullable<ReturnType<typeof prepareCsvReport>>; minSharedItems: number }) {
  return (
    <div className="flex flex-col gap-4" data-testid="csv-report">
      {report.notes.map((n) => (
        <p key={n} className="text-[12px] text-zinc-600" data-testid="csv-left-out">
          {n}
        </p>
      ))}
      <StatCards cards={report.cards} />
      <IntervalNote />
      <div className="grid gap-4 xl:grid-cols-2">
        <TablePanel id="csv-pairwise" title="Cohen κ per rater pair" description={`Pairs sharing at least ${minSharedItems} items.`} table={report.pairwise} />
        {report.matrix && (
          <section className="panel px-3 py-2" aria-label="Pairwise matrix">
            <div className="section-title mb-2">Rater × rater κ</div>
            <HeatMatrix model={report.matrix} label="csv-pairwise" />
          </section>
        )}
      </div>
    </div>
  );
}

/** One column of the uploaded file, picked from its header. */
function ColumnSelect({ title, columns, value, onChange }: { title: string; columns: string[]; value: string; onChange: (column: string) => void }) {
  return (
    <label className="flex flex-col text-[12px]">
      <span className="section-title mb-1">{title}</span>
      <select aria-label={`${title} column`} className="field" value={value} onChange={(e) => onChange(e.target.value)}>
        <Options values={columns} />
      </select>
    </label>
  );
}
