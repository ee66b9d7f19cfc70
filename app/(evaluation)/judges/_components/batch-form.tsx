"use client";
/**
 * The batch form: a configuration, the trajectories the list filter selects, the k values (how many final
 * screenshots the judge sees), concurrency. "Dry run" asks the server what the batch would cost (calls, images,
 * tokens, dollars) without creating anything; "Start" creates it and opens its progress page.
 */
import { useMutation, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterInputs } from "@trpc/server";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { formatCount } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { Field } from "../../../live/_components/bits";
import { parseKText } from "../_lib/batch-text";
import { errorText } from "../_lib/error-text";
import { EstimateFigures } from "./estimate-figures";
import { ConfigPicker } from "./judge-pickers";

type BatchInput = inferRouterInputs<AppRouter>["judge"]["batches"]["start"];
type Filter = Extract<BatchInput["selection"], { filter: unknown }>["filter"];

/** The k values WebVoyager's paper compares; others can be typed in. */
const K_CHOICES = ["1", "2", "3", "full"] as const;

export function BatchForm({
  filter,
  filterSearch,
  filterCount,
  initialConfigId,
}: {
  filter: Filter;
  filterSearch: string;
  filterCount: number;
  initialConfigId: number | null;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const { data: configs } = useSuspenseQuery(trpc.judge.configs.list.queryOptions());
  const [configId, setConfigId] = useState<number | null>(
    initialConfigId && configs.some((c) => c.id === initialConfigId) ? initialConfigId : (configs[0]?.id ?? null),
  );
  const [kChecked, setKChecked] = useState<Record<string, boolean>>({ "1": false, "2": false, "3": true, full: false });
  const [kExtra, setKExtra] = useState("");
  const [concurrency, setConcurrency] = useState("4");
  const [samples, setSamples] = useState("1");
  const [force, setForce] = useState(false);
  const [label, setLabel] = useState(filterCount ? `list filter ${filterSearch}` : "all trajectories");
  const [dryRunFor, setDryRunFor] = useState<string | null>(null);
  const f = useId();

  const extra = parseKText(kExtra);
  const kValues = useMemo(() => {
    const picked = K_CHOICES.filter((k) => kChecked[k]).map((k) => (k === "full" ? ("full" as const) : Number(k)));
    const more = "ks" in extra ? extra.ks : [];
    return [...new Set([...picked, ...more])];
  }, [kChecked, extra]);
  const problem =
    configId === null
      ? "Create a judge configuration first."
      : "bad" in extra
        ? `k value ${JSON.stringify(extra.bad)} is not a whole number from 1 to 1000 or "full"`
        : kValues.length === 0
          ? "Choose at least one k value."
          : !/^\d+$/.test(concurrency) || Number(concurrency) < 1 || Number(concurrency) > 64
            ? "Concurrency must be a whole number from 1 to 64."
            : !/^\d+$/.test(samples) || Number(samples) < 1 || Number(samples) > 15
              ? "Samples must be a whole number from 1 to 15."
              : null;

  const input: BatchInput | null =
    problem === null
      ? {
          config: configId!,
          selection: { filter },
          kValues,
          concurrency: Number(concurrency),
          samples: Number(samples),
          force,
          selectionLabel: label.trim().slice(0, 200) || undefined,
        }
      : null;
  const inputKey = input ? JSON.stringify(input) : null;
  // The estimate shown always belongs to the form as it is now: changing anything asks for a new dry run.
  const estimate = useQuery({
    ...trpc.judge.batches.estimate.queryOptions(input ?? ({} as BatchInput)),
    enabled: input !== null && dryRunFor === inputKey,
    retry: false,
    staleTime: 10_000,
  });
  const start = useMutation(trpc.judge.batches.start.mutationOptions({ onSuccess: ({ batchId }) => router.push(`/judges/batches/${batchId}`) }));
  const e = dryRunFor === inputKey ? estimate.data : undefined;
  const selected = configs.find((c) => c.id === configId);

  if (configs.length === 0) {
    return (
      <div className="mx-auto w-full max-w-4xl px-6 py-5">
        <div className="panel px-4 py-3 text-[13px] text-zinc-700" data-testid="no-configs">
          No judge configuration yet.{" "}
          <Link className="link" href="/judges">
            Create one on the Judges page
          </Link>{" "}
          first.
        </div>
      </div>
    );
  }

  return (
    <form
      className="mx-auto flex w-full max-w-4xl flex-col gap-4 px-6 py-5"
      aria-label="New judge batch"
      onSubmit={(ev) => {
        ev.preventDefault();
        if (input) setDryRunFor(inputKey);
      }}
    >
      <section className="panel flex flex-col gap-3 px-4 py-3" aria-label="Trajectories">
        <h2 className="section-title">1 · Trajectories</h2>
        <p className="text-[13px] text-zinc-700" data-testid="selection">
          {filterCount ? (
            <>
              The trajectories the list filter <code className="font-mono text-[12px]">{filterSearch}</code> selects.
            </>
          ) : (
            <>Every trajectory (no list filter). Use “Judge these” on a filtered trajectory list to grade fewer.</>
          )}{" "}
          <Link className="link" href={`/trajectories${filterSearch}`} target="_blank">
            See them in the list ↗
          </Link>
        </p>
        <Field label="Label" htmlFor={`${f}-label`} hint="How the batch is listed">
          <input id={`${f}-label`} className="field" maxLength={200} value={label} onChange={(ev) => setLabel(ev.target.value)} />
        </Field>
      </section>

      <section className="panel grid gap-3 px-4 py-3 sm:grid-cols-2" aria-label="Judge">
        <h2 className="section-title sm:col-span-2">2 · Judge</h2>
        <ConfigPicker
          id={`${f}-config`}
          label="Configuration"
          hint={selected ? `${selected.model} at ${selected.baseUrl ?? "the OpenAI API"} · ${selected.options.screenshots} screenshots` : undefined}
          options={configs}
          value={configId}
          onChange={setConfigId}
          testId="config-select"
        />
        <Field label="Concurrency" htmlFor={`${f}-conc`} hint="Calls in flight at once (1–64)">
          <input id={`${f}-conc`} className="field" inputMode="numeric" value={concurrency} onChange={(ev) => setConcurrency(ev.target.value)} />
        </Field>
        <Field
          label="Samples per item"
          htmlFor={`${f}-samples`}
          hint="Ask several times (needs temperature > 0): the vote share becomes the judge's confidence, for calibration on the judge agreement page"
        >
          <input
            id={`${f}-samples`}
            className="field"
            inputMode="numeric"
            value={samples}
            onChange={(ev) => setSamples(ev.target.value)}
            data-testid="samples-input"
          />
        </Field>
        <fieldset className="flex flex-col gap-1">
          <legend className="text-[12px] font-medium text-zinc-700">k values (final screenshots the judge sees)</legend>
          <div className="flex flex-wrap gap-3 text-[13px]">
            {K_CHOICES.map((k) => (
              <label key={k} className="flex items-center gap-1.5">
                <input type="checkbox" checked={!!kChecked[k]} onChange={(ev) => setKChecked({ ...kChecked, [k]: ev.target.checked })} data-testid={`k-${k}`} />
                {k === "full" ? "full trajectory" : `k = ${k}`}
              </label>
            ))}
          </div>
        </fieldset>
        <Field label="More k values" htmlFor={`${f}-kx`} hint='e.g. "5, 10"'>
          <input id={`${f}-kx`} className="field font-mono" value={kExtra} onChange={(ev) => setKExtra(ev.target.value)} />
        </Field>
        <label className="flex items-center gap-2 text-[13px] text-zinc-700 sm:col-span-2">
          <input type="checkbox" checked={force} onChange={(ev) => setForce(ev.target.checked)} />
          Judge again where this configuration already has a verdict (otherwise those are kept and skipped)
        </label>
      </section>

      <section className="panel flex flex-col gap-3 px-4 py-3" aria-label="Estimate">
        <h2 className="section-title">3 · Dry run and start</h2>
        <div className="rounded-md bg-zinc-50 px-3 py-2 text-[13px]" data-testid="estimate" aria-live="polite">
          {problem ? (
            <span className="text-rose-700">{problem}</span>
          ) : dryRunFor !== inputKey ? (
            <span className="text-zinc-500">Run a dry run to see what the batch would send, before anything is called.</span>
          ) : estimate.isError ? (
            <span className="text-rose-700" role="alert">
              {errorText(estimate.error)}
            </span>
          ) : !e ? (
            <span className="text-zinc-500">Estimating…</span>
          ) : (
            <EstimateFigures
              estimate={e}
              itemsName="trajectories"
              extra={[{ label: "Pairs", value: `${formatCount(e.pairs)} (trajectories × k)` }]}
              rows={e.perK.map((p) => ({ key: p.k, label: p.k, calls: p.calls, images: p.images }))}
              rowHeader="k"
              rowsAlways
            />
          )}
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <button type="submit" className="btn" disabled={problem !== null} data-testid="dry-run">
            Dry run
          </button>
          <button
            type="button"
            className="btn btn-on"
            data-testid="start-batch"
            disabled={!input || !e || e.calls === 0 || start.isPending}
            title={!e ? "Run a dry run first" : e.calls === 0 ? "Nothing to call: every pair already has a verdict" : undefined}
            onClick={() => input && start.mutate(input)}
          >
            {start.isPending ? "Starting…" : e ? `Start ${formatCount(e.calls)} call${e.calls === 1 ? "" : "s"}` : "Start"}
          </button>
          {start.isError && (
            <span className="text-[12px] text-rose-700" role="alert">
              {errorText(start.error)}
            </span>
          )}
        </div>
      </section>
    </form>
  );
}
