"use client";
/** Alignment studies, newest first, each linking to its page (split, versions, runs). */
import { useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { EmptyState, formatCount, formatDate } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { DenseTable, right } from "../../../_components/table";

export function AlignmentList() {
  const trpc = useTRPC();
  const { data: studies } = useSuspenseQuery(trpc.judge.alignment.list.queryOptions());
  if (studies.length === 0) {
    return (
      <EmptyState title="No alignment studies yet">
        A study splits a labelled campaign once into a calibration part and a held-out part. New prompt versions learn from the calibration part&apos;s
        disagreements with people (few-shot examples, a rubric) and are measured on the held-out part only. Create one below.
      </EmptyState>
    );
  }
  return (
    <section className="panel" aria-label="Alignment studies">
      <div className="overflow-x-auto">
        <DenseTable
          columns={["Study", "Configuration", "Campaign", "k", right("Calibration / held out"), right("Versions"), "Created"]}
          testId="alignment-table"
        >
          {studies.map((s) => (
            <tr key={s.id}>
              <td>
                <Link className="link" href={`/judges/alignment/${s.id}`}>
                  {s.name}
                </Link>
              </td>
              <td>{s.configName}</td>
              <td>{s.campaignName}</td>
              <td className="font-mono text-[12px]">{s.k}</td>
              <td className="text-right tabular-nums">
                {formatCount(s.calibration)} / {formatCount(s.heldOut)}
              </td>
              <td className="text-right tabular-nums">{formatCount(s.versions)}</td>
              <td className="text-[12px] whitespace-nowrap text-zinc-500">{formatDate(s.createdAt)}</td>
            </tr>
          ))}
        </DenseTable>
      </div>
    </section>
  );
}
