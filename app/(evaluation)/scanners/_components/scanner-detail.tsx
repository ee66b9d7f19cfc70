"use client";
/**
 * One scanner: what it looks for (each pattern and the fields it reads), how far it agrees with people's labels
 * (precision and recall with Wilson intervals, per trajectory and, where people marked steps, per step, with the
 * counts they come from and "not enough labels" when they are too few), and the steps it matched, each a link to
 * the player at that step. A researcher's own scanner can be edited or deleted here.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "../../../_trpc/client";
import { formatCount, PageHeader } from "../../../_components/ui";
import { EnoughBadge, ShareCell, type Measure } from "./measure-cells";
import { ScannerForm } from "./scanner-form";
import { DenseTable, right } from "../../../_components/table";

function MeasureRow({ label, m, note, testId }: { label: string; m: Measure | null; note: string | null; testId: string }) {
  if (!m || note) {
    return (
      <tr data-testid={testId}>
        <th className="text-left font-medium">{label}</th>
        <td colSpan={4} className="text-zinc-500">
          {note ? `Nothing to measure against: ${note}.` : "No steps marked by people yet: a campaign needs a per-step choice question offering this category."}
        </td>
      </tr>
    );
  }
  return (
    <tr data-testid={testId}>
      <th className="text-left font-medium">
        {label} <EnoughBadge m={m} />
      </th>
      <td className="text-right tabular-nums">{formatCount(m.n)}</td>
      <td>
        <ShareCell share={m.precision} testId={`${testId}-precision`} />
      </td>
      <td>
        <ShareCell share={m.recall} testId={`${testId}-recall`} />
      </td>
      <td className="text-zinc-600 tabular-nums">
        {m.truePositives} / {m.falsePositives} / {m.falseNegatives} / {m.trueNegatives}
      </td>
    </tr>
  );
}

function Definition({
  rules,
  minConsecutive,
}: {
  rules: { kind: string; fields?: string[]; pattern?: string; flags?: string; minShare?: number }[];
  minConsecutive: number;
}) {
  return (
    <ul className="flex flex-col gap-1 text-[12.5px]" data-testid="scanner-rules">
      {rules.map((r, i) => (
        <li key={i}>
          {r.kind === "regex" ? (
            <>
              <code className="rounded-sm bg-zinc-100 px-1 break-all">
                /{r.pattern}/{r.flags}
              </code>{" "}
              <span className="text-zinc-600">over {r.fields!.join(", ")}</span>
            </>
          ) : (
            <span>Blank screenshot: at least {Math.round((r.minShare ?? 0) * 1000) / 10}% of the image one colour</span>
          )}
        </li>
      ))}
      {minConsecutive > 1 && <li className="text-zinc-600">Counts only on {minConsecutive} or more steps in a row.</li>}
    </ul>
  );
}

export function ScannerDetailView({ scannerKey }: { scannerKey: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const detail = useQuery(trpc.scanners.detail.queryOptions({ key: scannerKey }));
  const [editing, setEditing] = useState(false);
  const remove = useMutation(
    trpc.scanners.remove.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.scanners.pathKey() });
        router.push("/scanners");
      },
    }),
  );
  if (!detail.data) return <p className="px-6 py-4 text-[13px] text-zinc-500">{detail.error?.message ?? "Loading…"}</p>;
  const { scanner: s, measures, matches, matchCount } = detail.data;
  return (
    <>
      <PageHeader
        title={s.name}
        subtitle={s.description}
        actions={
          <>
            <Link className="btn" href="/scanners">
              All scanners
            </Link>
            {!s.builtIn && (
              <>
                <button type="button" className="btn" onClick={() => setEditing(!editing)} data-testid="edit-scanner">
                  {editing ? "Close editor" : "Edit"}
                </button>
                <button
                  type="button"
                  className="btn"
                  disabled={remove.isPending}
                  onClick={() => window.confirm(`Delete the scanner "${s.name}" and what it found?`) && remove.mutate({ key: s.key })}
                >
                  Delete
                </button>
              </>
            )}
          </>
        }
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        {editing && <ScannerForm initial={s} />}
        <section className="panel flex flex-col gap-2 px-4 py-3" aria-label="Definition">
          <p className="text-[12.5px] text-zinc-700">
            <span className="font-mono">scanner:{s.key}</span> · {s.builtIn ? "built in" : "yours"} · measured against the error category{" "}
            <strong>{s.category}</strong>
          </p>
          <Definition rules={s.rules} minConsecutive={s.minConsecutive} />
        </section>
        <section className="panel overflow-x-auto px-4 py-3" aria-label="Against people's labels" data-testid="scanner-measures">
          <h2 className="mb-1 text-[14px] font-semibold">Against people&apos;s labels</h2>
          <p className="mb-2 text-[12px] text-zinc-600">
            Of {formatCount(s.scanned)} trajectories scanned with this definition, {formatCount(s.fired)} matched
            {s.problems ? `; ${formatCount(s.problems)} scans could not finish` : ""}
            {measures.unfinished ? ` (${formatCount(measures.unfinished)} of them left out below)` : ""}. Precision: of those it matched, the share people gave
            &ldquo;{s.category}&rdquo;. Recall: of those people gave it, the share it matched. Wilson 95% intervals in brackets.
          </p>
          <DenseTable columns={["", right("n labelled"), "Precision", "Recall", "TP / FP / FN / TN"]} cellClassName="text-left">
            <MeasureRow label="Trajectories" m={measures.trajectory} note={measures.trajectoryNote} testId="measure-trajectory" />
            <MeasureRow label="Steps" m={measures.step} note={null} testId="measure-step" />
          </DenseTable>
        </section>
        <section className="panel overflow-x-auto px-4 py-3" aria-label="Matched steps">
          <h2 className="mb-1 text-[14px] font-semibold">
            Matched steps <span className="font-normal text-zinc-500">({formatCount(matchCount)})</span>
          </h2>
          {matches.length === 0 ? (
            <p className="text-[12.5px] text-zinc-600">Nothing matched yet. Run the scanner from the Scanners page.</p>
          ) : (
            <DenseTable columns={["Trajectory", "Step", "Field", "Matched"]} cellClassName="text-left" testId="scanner-matches">
              {matches.map((m, i) => (
                <tr key={`${m.trajectoryId}-${m.stepIndex}-${i}`}>
                  <td>
                    <Link className="link font-mono" href={`/trajectories/${m.trajectoryId}?step=${m.stepIndex + 1}`}>
                      #{m.trajectoryId}
                    </Link>
                  </td>
                  <td className="tabular-nums">{m.stepIndex + 1}</td>
                  <td>{m.field}</td>
                  <td className="break-words">{m.matchedText}</td>
                </tr>
              ))}
            </DenseTable>
          )}
        </section>
      </div>
    </>
  );
}
