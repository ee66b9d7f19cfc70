"use client";
/**
 * The versions view: per prompt version, on the same held-out items, κ against people, FPR, FNR and the success-rate
 * gap with their intervals, and against the version it builds on the change in κ and the items that flipped; κ
 * per version as a chart; and any two versions compared: the diff of their prompts and the held-out items whose
 * verdict changed between them, each opening the player.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { formatCount } from "../../../_components/ui";
import { RateChart } from "../../../analytics/_components/charts";
import { useTRPC } from "../../../_trpc/client";
import { errorText } from "../_lib/error-text";
import { kappaChangeText, kappaText, rateText, versionsKappaChart, versionSummary, type AlignmentView } from "../_lib/improvement";
import { FlipTable } from "./stress-report";
import { DenseTable, hidden, right } from "../../../_components/table";

export function AlignmentVersions({ view }: { view: AlignmentView }) {
  return (
    <section className="panel" aria-label="Versions">
      <h2 className="section-title border-b border-zinc-200 px-3 py-2">
        Versions on the same {formatCount(view.heldOut)} held-out item{view.heldOut === 1 ? "" : "s"}
      </h2>
      <div className="overflow-x-auto">
        <DenseTable
          columns={[
            "Version",
            "Asks with",
            right("Judged"),
            "κ against people",
            "FPR",
            "FNR",
            "Rate gap (judge − people)",
            "Against its parent",
            hidden("Stress test"),
          ]}
          testId="versions-table"
        >
          {view.versions.map((v) => {
            const m = v.measures;
            const c = v.comparedWithParent;
            return (
              <tr key={v.version.id} data-testid={`version-${v.version.number}`}>
                <td className="font-medium">v{v.version.number}</td>
                <td className="max-w-xs text-[12px]">
                  {versionSummary(v.version)}
                  {v.version.note && <span className="block text-zinc-500">{v.version.note}</span>}
                </td>
                <td className="text-right tabular-nums">
                  {m.n} / {m.items}
                  {m.missing > 0 && <span className="block text-2xs text-amber-700">{m.missing} not run yet</span>}
                </td>
                <td className="tabular-nums" data-testid="version-kappa">
                  {kappaText(m.kappa)}
                </td>
                <td className="tabular-nums">{rateText(m.errors.falsePositive)}</td>
                <td className="tabular-nums">{rateText(m.errors.falseNegative)}</td>
                <td className="tabular-nums">{rateText(m.errors.gap)}</td>
                <td className="text-[12px] tabular-nums" data-testid="version-change">
                  {c
                    ? `v${c.parentNumber}: κ ${kappaChangeText(c.kappaChange)} · ${c.flipped.length} flipped (${c.nowRight} now right, ${c.nowWrong} now wrong)`
                    : "–"}
                </td>
                <td>
                  <Link
                    className="btn whitespace-nowrap"
                    href={`/judges/stress/new?study=${view.alignment.id}&version=${v.version.number}`}
                    title={`A stress test of the judge asking with v${v.version.number}, on the study's campaign at k = ${view.alignment.k}`}
                    data-testid="stress-version"
                  >
                    Stress this version
                  </Link>
                </td>
              </tr>
            );
          })}
        </DenseTable>
      </div>
      {view.versions.length > 1 && (
        <div className="border-t border-zinc-100 px-3 py-2">
          <h3 className="section-title mb-1">κ per version (95% interval where there is one)</h3>
          <RateChart model={versionsKappaChart(view)} />
        </div>
      )}
      <p className="border-t border-zinc-100 px-3 py-2 text-2xs text-zinc-500">
        κ: the analytics pages&apos; interval rules (none under 10 items). FPR/FNR: task-clustered Wilson intervals; rate gap: bootstrap over tasks. Change in
        κ: paired bootstrap over the items both versions decided.
      </p>
      {view.versions.length > 1 && <VersionCompare view={view} />}
    </section>
  );
}

function VersionCompare({ view }: { view: AlignmentView }) {
  const trpc = useTRPC();
  const numbers = view.versions.map((v) => v.version.number);
  const last = view.versions[view.versions.length - 1]!;
  const [a, setA] = useState(last.comparedWithParent?.parentNumber ?? numbers[0]!);
  const [b, setB] = useState(last.version.number);
  const compare = useQuery({ ...trpc.judge.alignment.compare.queryOptions({ id: view.alignment.id, a, b }), enabled: a !== b });
  const pick = (value: number, set: (n: number) => void, label: string) => (
    <select
      aria-label={label}
      className="field w-24"
      value={value}
      onChange={(ev) => set(Number(ev.target.value))}
      data-testid={`compare-${label === "From version" ? "a" : "b"}`}
    >
      {numbers.map((n) => (
        <option key={n} value={n}>
          v{n}
        </option>
      ))}
    </select>
  );
  const c = compare.data;
  return (
    <div className="flex flex-col gap-2 border-t border-zinc-200 px-3 py-3" data-testid="version-compare">
      <div className="flex flex-wrap items-center gap-2 text-[13px]">
        <span className="section-title">Compare</span>
        {pick(a, setA, "From version")}
        <span aria-hidden>→</span>
        {pick(b, setB, "To version")}
        {c && (
          <span className="text-zinc-600 tabular-nums" data-testid="compare-summary">
            {c.flipped.length} of {c.comparison.n} held-out items flipped ({c.comparison.nowRight} now right, {c.comparison.nowWrong} now wrong) · κ{" "}
            {kappaChangeText(c.comparison.kappaChange)}
          </span>
        )}
      </div>
      {a === b ? (
        <p className="text-[12px] text-zinc-500">Choose two different versions.</p>
      ) : compare.isError ? (
        <p className="text-[12px] text-rose-700" role="alert">
          {errorText(compare.error)}
        </p>
      ) : !c ? (
        <p className="text-[12px] text-zinc-500">Comparing…</p>
      ) : (
        <div className="grid gap-3 xl:grid-cols-2">
          <div>
            <h3 className="section-title mb-1">Flipped items</h3>
            {c.flipped.length === 0 ? <p className="text-[12px] text-zinc-500">No held-out verdict changed.</p> : <FlipTable rows={c.flipped} />}
          </div>
          <div>
            <h3 className="section-title mb-1">Prompt diff (system message)</h3>
            <PromptDiff lines={c.diff} />
          </div>
        </div>
      )}
    </div>
  );
}

/** Changed lines with a little context; long unchanged stretches are folded. */
function PromptDiff({ lines }: { lines: { op: string; text: string }[] }) {
  const near = (i: number) => lines.slice(Math.max(0, i - 2), i + 3).some((l) => l.op !== "same");
  let folded = 0;
  const out: { key: string; op: string; text: string }[] = [];
  lines.forEach((l, i) => {
    if (l.op === "same" && !near(i)) {
      folded++;
      return;
    }
    if (folded) out.push({ key: `f${i}`, op: "fold", text: `… ${folded} unchanged line${folded === 1 ? "" : "s"}` });
    folded = 0;
    out.push({ key: String(i), op: l.op, text: l.text });
  });
  if (folded) out.push({ key: "end", op: "fold", text: `… ${folded} unchanged line${folded === 1 ? "" : "s"}` });
  const style: Record<string, string> = {
    added: "bg-emerald-50 text-emerald-900",
    removed: "bg-rose-50 text-rose-900 line-through decoration-rose-300",
    fold: "text-zinc-400 italic",
    same: "text-zinc-600",
  };
  const mark: Record<string, string> = { added: "+", removed: "−", fold: " ", same: " " };
  return (
    <pre className="max-h-96 overflow-auto rounded-md border border-zinc-200 bg-white py-1 font-mono text-[11.5px] leading-5" data-testid="prompt-diff">
      {out.map((l) => (
        <div key={l.key} className={`px-2 whitespace-pre-wrap ${style[l.op] ?? ""}`} data-op={l.op}>
          {mark[l.op] ?? " "} {l.text}
        </div>
      ))}
    </pre>
  );
}
