"use client";
/**
 * A figure: title, description, the chart, and its numbers one click away (Chart | Table), with the table
 * downloadable as CSV. Without a chart the table is shown.
 */
import { useState, type ReactNode } from "react";
import type { TableModel } from "../_lib/table";
import { DataTable } from "./data-table";

/** The CSV writer (csv-stringify, with a Buffer shim in the browser) is loaded on the first click, not with the page. */
export async function downloadCsv(table: TableModel) {
  const { csvFileName, tableToCsv } = await import("../_lib/table");
  const blob = new Blob([tableToCsv(table)], { type: "text/csv;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = csvFileName(table.name);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function CsvButton({ table }: { table: TableModel }) {
  return (
    <button type="button" className="btn" onClick={() => void downloadCsv(table)} title="Download this table as CSV" disabled={table.rows.length === 0}>
      CSV
    </button>
  );
}

export function Figure({
  id,
  title,
  description,
  chart,
  table,
  controls,
  defaultView,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  chart: ReactNode | null;
  table: TableModel;
  controls?: ReactNode;
  defaultView?: "chart" | "table";
}) {
  const [view, setView] = useState<"chart" | "table">(chart ? (defaultView ?? "chart") : "table");
  return (
    <section className="panel" data-figure={id} aria-labelledby={`fig-${id}`}>
      <header className="flex flex-wrap items-start justify-between gap-2 border-b border-zinc-100 px-3 py-2">
        <div className="min-w-0">
          <h2 id={`fig-${id}`} className="text-[13px] font-semibold text-zinc-900">
            {title}
          </h2>
          {description && <p className="mt-0.5 max-w-3xl text-[11.5px] text-zinc-500">{description}</p>}
        </div>
        <div className="flex items-center gap-1.5">
          {controls}
          {chart && (
            <div role="group" aria-label="View" className="flex">
              <button
                type="button"
                className={`btn rounded-r-none ${view === "chart" ? "btn-on" : ""}`}
                aria-pressed={view === "chart"}
                onClick={() => setView("chart")}
              >
                Chart
              </button>
              <button
                type="button"
                className={`btn -ml-px rounded-l-none ${view === "table" ? "btn-on" : ""}`}
                aria-pressed={view === "table"}
                onClick={() => setView("table")}
              >
                Table
              </button>
            </div>
          )}
          <CsvButton table={table} />
        </div>
      </header>
      <div className={view === "chart" && chart ? "px-2 py-2" : ""}>{view === "chart" && chart ? chart : <DataTable table={table} maxHeight={560} />}</div>
    </section>
  );
}

/** A table with a title and CSV export, without a chart. */
export function TablePanel({
  id,
  title,
  description,
  table,
  controls,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  table: TableModel;
  controls?: ReactNode;
}) {
  return <Figure id={id} title={title} description={description} chart={null} table={table} controls={controls} />;
}
