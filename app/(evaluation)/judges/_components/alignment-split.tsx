"use client";
/**
 * A study's split: the strata (human label × site) with how many items each gave to the calibration and held-out
 * parts, every item with its part, and the whole as a CSV file to download.
 */
import { useSuspenseQuery } from "@tanstack/react-query";
import { formatCount, TrajectoryLink } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { DenseTable, right } from "../../../_components/table";

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

export function AlignmentSplit({ id }: { id: number }) {
  const trpc = useTRPC();
  const { data: s } = useSuspenseQuery(trpc.judge.alignment.splitItems.queryOptions({ id }));
  const calibration = s.items.filter((i) => i.part === "calibration").length;
  return (
    <section className="panel" aria-label="Split">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 className="section-title" data-testid="split-summary">
          Split · {formatCount(calibration)} calibration · {formatCount(s.items.length - calibration)} held out · seed {s.seed} · held-out share{" "}
          {s.heldOutShare}
          {s.leftOut.length > 0 && ` · ${formatCount(s.leftOut.length)} left out`}
        </h2>
        <button
          type="button"
          className="btn"
          data-testid="export-split"
          onClick={() => download(`alignment-${s.name.replace(/[^\w.-]+/g, "_")}-split.csv`, s.csv)}
        >
          Download CSV
        </button>
      </div>
      <div className="grid gap-3 px-3 py-2 lg:grid-cols-[minmax(0,1fr)_minmax(0,2fr)]">
        <DenseTable columns={["People", "Site", right("Calibration"), right("Held out")]} className="self-start" testId="split-strata">
          {s.strata.map((st) => (
            <tr key={`${st.human}:${st.site}`}>
              <td>{st.human}</td>
              <td>{st.site ?? "(no site)"}</td>
              <td className="text-right tabular-nums">{formatCount(st.calibration)}</td>
              <td className="text-right tabular-nums">{formatCount(st.heldOut)}</td>
            </tr>
          ))}
        </DenseTable>
        <div className="max-h-72 overflow-auto">
          <DenseTable columns={["Trajectory", "Part", "People", "Task"]} testId="split-items">
            {s.items.map((i) => (
              <tr key={i.trajectoryId} data-part={i.part}>
                <td>
                  <TrajectoryLink id={i.trajectoryId} />
                </td>
                <td className={i.part === "held-out" ? "text-amber-800" : "text-zinc-700"}>{i.part}</td>
                <td>{i.human ?? "–"}</td>
                <td className="max-w-md truncate text-[12px]" title={i.intent}>
                  {i.intent}
                </td>
              </tr>
            ))}
          </DenseTable>
        </div>
      </div>
    </section>
  );
}
