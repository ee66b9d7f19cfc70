"use client";
/**
 * What scanners (docs/guide/scanners.md) found in this trajectory: a mark on each matched step of the filmstrip and,
 * for the current step, the scanner's name and the text it matched. The server hides them exactly as it hides
 * judges' verdicts (the blind); a campaign item still to be labelled blind (id 0) never asks.
 */
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTRPC } from "../../../_trpc/client";

export interface ScannerMark {
  scannerKey: string;
  scannerName: string;
  field: string;
  matchedText: string;
}

/** The scanners' matches by step index; empty while loading, when hidden and for a blind item. */
export function useScannerMarks(trajectoryId: number): Map<number, ScannerMark[]> {
  const trpc = useTRPC();
  const query = useQuery({ ...trpc.scanners.trajectory.queryOptions({ trajectoryId }), enabled: trajectoryId !== 0, retry: false });
  return useMemo(() => {
    const out = new Map<number, ScannerMark[]>();
    for (const m of query.data?.matches ?? []) {
      const list = out.get(m.stepIndex) ?? [];
      list.push({ scannerKey: m.scannerKey, scannerName: m.scannerName, field: m.field, matchedText: m.matchedText });
      out.set(m.stepIndex, list);
    }
    return out;
  }, [query.data]);
}

const FIELD_NAMES: Record<string, string> = {
  thought: "thought",
  action: "action",
  element: "page text",
  url: "URL",
  error: "error",
  answer: "answer",
  screenshot: "screenshot",
};

/** The tooltip of a filmstrip mark: one line per scanner. */
export function scannerMarkTitle(marks: readonly ScannerMark[]): string {
  return marks.map((m) => `⚠ ${m.scannerName}: “${m.matchedText}” (${FIELD_NAMES[m.field] ?? m.field})`).join("\n");
}

/** The current step's findings, under its details. */
export function ScannerFindings({ trajectoryId, stepIndex }: { trajectoryId: number; stepIndex: number }) {
  const marks = useScannerMarks(trajectoryId).get(stepIndex);
  if (!marks?.length) return null;
  return (
    <section className="border-t border-zinc-200 px-4 py-3" data-testid="scanner-findings" aria-label="Scanner findings">
      <h3 className="text-[11px] font-semibold tracking-wide text-amber-800 uppercase">Scanners matched this step</h3>
      <ul className="mt-1.5 flex flex-col gap-1.5">
        {marks.map((m, i) => (
          <li key={`${m.scannerKey}-${i}`} className="text-[12.5px] leading-snug text-zinc-800">
            <a className="link font-medium" href={`/scanners/${m.scannerKey}`}>
              {m.scannerName}
            </a>{" "}
            <span className="text-zinc-500">in the {FIELD_NAMES[m.field] ?? m.field}:</span>{" "}
            <mark className="rounded-sm bg-amber-100 px-0.5 break-words text-amber-950">{m.matchedText}</mark>
          </li>
        ))}
      </ul>
    </section>
  );
}
