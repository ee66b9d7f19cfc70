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
import { useId, useMemo, useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/api/root";
import { formatCount, PanelSection } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { Field, PageForm, TextInput } from "../../../_components/field";
import { K_CHOICES, parseKText, wholeIn, type KValue } from "../_lib/batch-text";
import { ConcurrencyField, DryRunSection, StartButton, useDryRunFor } from "./dry-run";
import { EstimateFigures } from "./estimate-figures";
import { ConfigPicker } from "./judge-pickers";

type BatchInput = inferRouterInputs<AppRouter>["judge"]["batches"]["start"];
type Filter = Extract<BatchInput["selection"], { filter: unknown }>["filter"];

/** What keeps the form from a dry run, or null. */
function batchProblem(f: { configId: number | null; extra: ReturnType<typeof parseKText>; kValues: KValue[]; concurrency: string; samples: string }) {
  return f.configId === null
    ? "Create a judge configuration first."
    : "bad" in f.extra
      ? `k value ${JSON.stringify(f.extra.bad)} is not a whole number from 1 to 1000 or "full"`
      : f.kValues.length === 0
        ? "Choose at least one k value."
        : wholeIn(f.concurrency, 1, 64) === null
          ? "Concurrency must be a whole number from 1 to 64."
          : wholeIn(f.samples, 1, 15) === null
            ? "Samples must be a whole number from 1 to 15."
            : null;
}

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
  const f = useId();

  const extra = parseKText(kExtra);
  const kValues = useMemo(() => {
    const picked = K_CHOICES.filter((k) => kChecked[k]).map((k) => (k === "full" ? ("full" as const) : Number(k)));
    const more = "ks" in extra ? extra.ks : [];
    return [...new Set([...picked, ...more])];
  }, [kChecked, extra]);
  const problem = batchProblem({ configId, extra, kValues, concurrency, samples });

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
  const dryRun = useDryRunFor(input);
  // The estimate shown always belongs to the form as it is now: changing anything asks for a new dry run.
  const estimate = useQuery({
    ...trpc.judge.batches.estimate.queryOptions(input ?? ({} as BatchInput)),
    enabled: dryRun.asked,
    retry: false,
    staleTime: 10_000,
  });
  const start = useMutation(trpc.judge.batches.start.mutationOptions({ onSuccess: ({ batchId }) => router.push(`/judges/batches/${batchId}`) }));
  const e = dryRun.asked ? estimate.data : undefined;
  const selected = configs.find((c) => c.id === configId);

  if (configs.length === 0) return <NoConfigurations />;

  return (
    <PageForm className="mx-auto flex w-full max-w-4xl flex-col gap-4 px-6 py-5" aria-label="New judge batch" onSubmit={dryRun.ask}>
      <TrajectoriesStep filterCount={filterCount} filterSearch={filterSearch}>
        <Field label="Label" htmlFor={`${f}-label`} hint="How the batch is listed">
          <TextInput id={`${f}-label`} maxLength={200} value={label} onText={setLabel} />
        </Field>
      </TrajectoriesStep>

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
        <ConcurrencyField id={`${f}-conc`} value={concurrency} onChange={setConcurrency} />
        <Field
          label="Samples per item"
          htmlFor={`${f}-samples`}
          hint="Ask several times (needs temperature > 0): the vote share becomes the judge's confidence, for calibration on the judge agreement page"
        >
          <TextInput id={`${f}-samples`} inputMode="numeric" value={samples} testId="samples-input" onText={setSamples} />
        </Field>
        <KValueFields id={`${f}-kx`} checked={kChecked} onChecked={setKChecked} extra={kExtra} onExtra={setKExtra} />
        <label className="flex items-center gap-2 text-[13px] text-zinc-700 sm:col-span-2">
          <input type="checkbox" checked={force} onChange={(ev) => setForce(ev.target.checked)} />
          Judge again where this configuration already has a verdict (otherwise those are kept and skipped)
        </label>
      </section>

      <DryRunSection
        testIds={{ estimate: "estimate", dryRun: "dry-run" }}
        problem={problem}
        idleText="Run a dry run to see what the batch would send, before anything is called."
        asked={dryRun.asked}
        dryRunError={estimate.error}
        result={
          e && (
            <EstimateFigures
              estimate={e}
              itemsName="trajectories"
              extra={[{ label: "Pairs", value: `${formatCount(e.pairs)} (trajectories × k)` }]}
              rows={e.perK.map((p) => ({ key: p.k, label: p.k, calls: p.calls, images: p.images }))}
              rowHeader="k"
              rowsAlways
            />
          )
        }
        start={{
          error: start.error,
          button: (
            <StartButton
              testId="start-batch"
              calls={e?.calls}
              pending={start.isPending}
              disabled={!input || !e || e.calls === 0}
              title={!e ? "Run a dry run first" : e.calls === 0 ? "Nothing to call: every pair already has a verdict" : undefined}
              onStart={() => input && start.mutate(input)}
            />
          ),
        }}
      />
    </PageForm>
  );
}

function NoConfigurations() {
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

/** Step 1: which trajectories (those the list filter selects, or every one), and the batch's label (`children`). */
function TrajectoriesStep({ filterCount, filterSearch, children }: { filterCount: number; filterSearch: string; children: ReactNode }) {
  return (
    <PanelSection title="1 · Trajectories" label="Trajectories">
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
      {children}
    </PanelSection>
  );
}

/** The k values to judge at: the usual ones as checkboxes, more typed in. */
function KValueFields({
  id,
  checked,
  onChecked,
  extra,
  onExtra,
}: {
  id: string;
  checked: Record<string, boolean>;
  onChecked: (checked: Record<string, boolean>) => void;
  extra: string;
  onExtra: (text: string) => void;
}) {
  return (
    <>
      <fieldset className="flex flex-col gap-1">
        <legend className="text-[12px] font-medium text-zinc-700">k values (final screenshots the judge sees)</legend>
        <div className="flex flex-wrap gap-3 text-[13px]">
          {K_CHOICES.map((k) => (
            <label key={k} className="flex items-center gap-1.5">
              <input type="checkbox" checked={!!checked[k]} onChange={(ev) => onChecked({ ...checked, [k]: ev.target.checked })} data-testid={`k-${k}`} />
              {k === "full" ? "full trajectory" : `k = ${k}`}
            </label>
          ))}
        </div>
      </fieldset>
      <Field label="More k values" htmlFor={id} hint='e.g. "5, 10"'>
        <TextInput id={id} className="field font-mono" value={extra} onText={onExtra} />
      </Field>
    </>
  );
}
