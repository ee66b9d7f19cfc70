"use client";
/**
 * Running a version: version 1 (the configuration's own prompt) is asked about every item, later versions about the
 * held-out part only. A dry run shows the calls and cost first; the run is a judge batch with progress, cancel and
 * resume. The study's latest run stays shown, so its progress survives a reload.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useId, useState } from "react";
import { useTRPC } from "../../../_trpc/client";
import { Field } from "../../../_components/field";
import { PanelSection } from "../../../_components/ui";
import { errorText } from "../_lib/error-text";
import type { AlignmentView } from "../_lib/improvement";
import { StartButton, useDryRunFor } from "./dry-run";
import { EstimateFigures } from "./estimate-figures";
import { RunProgress } from "./run-progress";

export function AlignmentRun({ view }: { view: AlignmentView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = view.alignment.id;
  const versions = view.versions.map((v) => v.version.number);
  // The first version not yet judged on every held-out item, else the latest.
  const pending = view.versions.find((v) => v.measures.missing > 0)?.version.number;
  const [version, setVersion] = useState<number>(pending ?? versions[versions.length - 1] ?? 1);
  const dryRun = useDryRunFor(version);
  const [started, setStarted] = useState<number | null>(null);
  const f = useId();
  const estimate = useQuery({ ...trpc.judge.alignment.estimateRun.queryOptions({ id, version }), enabled: dryRun.asked, retry: false });
  const e = dryRun.asked ? estimate.data : undefined;
  const reread = useCallback(() => {
    void queryClient.invalidateQueries(trpc.judge.alignment.versions.queryFilter({ id }));
    void queryClient.invalidateQueries(trpc.judge.alignment.disagreements.queryFilter({ id }));
    void queryClient.invalidateQueries(trpc.judge.alignment.compare.queryFilter());
  }, [queryClient, trpc, id]);
  const start = useMutation(
    trpc.judge.alignment.startRun.mutationOptions({
      onSuccess: (r) => {
        setStarted(r.batchId);
        dryRun.forget();
        reread();
      },
    }),
  );
  const shownBatch = started ?? view.batches[0]?.id ?? null;
  return (
    <PanelSection title="Run a version" label="Run a version">
      <div className="flex flex-wrap items-end gap-3">
        <Field
          label="Version"
          htmlFor={`${f}-v`}
          hint={version === 1 ? "Asked about every item (the calibration part's disagreements come from it)" : "Asked about the held-out part only"}
        >
          <select id={`${f}-v`} className="field w-32" value={version} onChange={(ev) => setVersion(Number(ev.target.value))} data-testid="run-version">
            {versions.map((n) => (
              <option key={n} value={n}>
                v{n}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" className="btn" data-testid="run-dry-run" onClick={dryRun.ask}>
          Dry run
        </button>
        <StartButton
          testId="run-start"
          calls={e?.calls}
          pending={start.isPending}
          disabled={!e || e.calls === 0}
          title={!e ? "Run a dry run first" : e.calls === 0 ? "Every item already has this version's verdict" : undefined}
          onStart={() => start.mutate({ id, version })}
        />
      </div>
      {dryRun.asked && (
        <div className="rounded-md bg-zinc-50 px-3 py-2 text-[13px]" data-testid="run-estimate" aria-live="polite">
          {estimate.isError ? (
            <span className="text-rose-700" role="alert">
              {errorText(estimate.error)}
            </span>
          ) : !e ? (
            <span className="text-zinc-500">Estimating…</span>
          ) : (
            <EstimateFigures estimate={e} testIdPrefix="run-est" />
          )}
        </div>
      )}
      {start.isError && (
        <p className="text-[12px] text-rose-700" role="alert">
          {errorText(start.error)}
        </p>
      )}
      {shownBatch !== null && <RunProgress key={shownBatch} batchId={shownBatch} onProgress={reread} />}
    </PanelSection>
  );
}
