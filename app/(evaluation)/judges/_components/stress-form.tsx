"use client";
/**
 * A new stress test: a judge configuration, a labelled campaign (its items with a consolidated success or failure
 * are asked about), k, the perturbations and their seed. "Dry run" shows what would be asked and what it would
 * cost per way of asking, with the perturbations that would change nothing and why; "Start" queues the test and
 * opens its page, where progress and the report follow.
 */
import { useMutation, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { listFilterFromText } from "@/server/domain/trajectory-list-query";
import { PERTURBATION_KINDS, PERTURBATION_LABELS, type PerturbationKind } from "@/server/domain/evaluation/prompt-variants";
import { formatCount } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { Field, PageForm, TextInput } from "../../../_components/field";
import { K_CHOICES, wholeIn } from "../_lib/batch-text";
import { ConcurrencyField, DryRunSection, SeedField, StartButton, useDryRunFor } from "./dry-run";
import { EstimateFigures } from "./estimate-figures";
import { CampaignPicker, ConfigPicker } from "./judge-pickers";
import { SkippedWays } from "./skipped-ways";

type StressInput = inferRouterInputs<AppRouter>["judge"]["stress"]["start"];
type Plan = inferRouterOutputs<AppRouter>["judge"]["stress"]["estimate"];

/** What "Stress this version" opens the form with: the study's configuration, campaign and k, and its prompt version. */
export interface StressPreset {
  configId: number;
  campaignId: number;
  k: string;
  /** null: the configuration's own prompt. */
  promptVersion: { id: number; label: string } | null;
}

/** What keeps the form from a dry run, or null. */
function formProblem(f: { configId: number | null; campaignId: number | null; perturbations: number; subsetK: string; seed: string; concurrency: string }) {
  const { configId, campaignId, subsetK, seed, concurrency } = f;
  return configId === null
    ? "Create a judge configuration first (on the Judges page)."
    : campaignId === null
      ? "A stress test compares the judge with people: label a campaign first."
      : f.perturbations === 0
        ? "Choose at least one perturbation."
        : wholeIn(subsetK, 1, 1000) === null
          ? "Subset k must be a whole number of screenshots from 1."
          : wholeIn(seed, 0, 4_294_967_295) === null
            ? "The seed must be a whole number from 0."
            : wholeIn(concurrency, 1, 64) === null
              ? "Concurrency must be a whole number from 1 to 64."
              : null;
}

export function StressForm({ preset }: { preset?: StressPreset }) {
  const trpc = useTRPC();
  const router = useRouter();
  const { data: configs } = useSuspenseQuery(trpc.judge.configs.list.queryOptions());
  const { data: campaigns } = useSuspenseQuery(trpc.campaigns.list.queryOptions());
  const [configId, setConfigId] = useState<number | null>(preset?.configId ?? configs[0]?.id ?? null);
  const [campaignId, setCampaignId] = useState<number | null>(preset?.campaignId ?? campaigns[0]?.id ?? null);
  const [k, setK] = useState<string>(preset?.k ?? "full");
  // A prompt version belongs to its configuration: choosing another configuration drops it.
  const promptVersion = preset?.promptVersion && configId === preset.configId ? preset.promptVersion : null;
  const [kinds, setKinds] = useState<Record<PerturbationKind, boolean>>({ shuffle: true, subset: true, "no-answer": true, "no-history": true });
  const [subsetK, setSubsetK] = useState("2");
  const [seed, setSeed] = useState("1");
  const [concurrency, setConcurrency] = useState("4");
  const [listText, setListText] = useState("");
  const f = useId();

  const chosen = PERTURBATION_KINDS.filter((p) => kinds[p]);
  // The list filter pasted into the form, as the server takes it; null when it selects nothing in particular.
  const list = listFilterFromText(listText);
  const problem = formProblem({ configId, campaignId, perturbations: chosen.length, subsetK, seed, concurrency });
  const input: StressInput | null =
    problem === null
      ? {
          config: configId!,
          campaign: campaignId!,
          k: k === "full" ? "full" : Number(k),
          perturbations: chosen,
          subsetK: Number(subsetK),
          seed: Number(seed),
          promptVersionId: promptVersion?.id ?? null,
          concurrency: Number(concurrency),
          ...(list ? { filter: list.filter, selectionLabel: `list filter ${list.search}` } : {}),
        }
      : null;
  const dryRun = useDryRunFor(input);
  // The plan shown always belongs to the form as it is: any change asks for a new dry run.
  const plan = useQuery({
    ...trpc.judge.stress.estimate.queryOptions(input ?? ({} as StressInput)),
    enabled: dryRun.asked,
    retry: false,
  });
  const p = dryRun.asked ? plan.data : undefined;
  const start = useMutation(trpc.judge.stress.start.mutationOptions({ onSuccess: (r) => router.push(`/judges/stress/${r.stressTestId}`) }));

  return (
    <PageForm className="flex flex-col gap-4 px-6 py-4" aria-label="New stress test" onSubmit={dryRun.ask}>
      <section className="panel grid gap-3 px-4 py-3 sm:grid-cols-2 lg:grid-cols-4" aria-label="What to stress">
        <h2 className="section-title sm:col-span-2 lg:col-span-4">1 · Judge and labelled items</h2>
        <ConfigPicker id={`${f}-config`} options={configs} value={configId} onChange={setConfigId} testId="stress-config" />
        <CampaignPicker
          id={`${f}-campaign`}
          hint="Its items with a consolidated success or failure"
          options={campaigns}
          value={campaignId}
          onChange={setCampaignId}
          testId="stress-campaign"
        />
        <Field label="k (final screenshots shown)" htmlFor={`${f}-k`}>
          <select id={`${f}-k`} className="field" value={k} onChange={(ev) => setK(ev.target.value)} data-testid="stress-k">
            {[...new Set([...K_CHOICES, k])].map((x) => (
              <option key={x} value={x}>
                {x === "full" ? "full trajectory" : `k = ${x}`}
              </option>
            ))}
          </select>
        </Field>
        <ConcurrencyField id={`${f}-conc`} value={concurrency} onChange={setConcurrency} />
        <Field
          label="Only what a list filter selects (optional)"
          htmlFor={`${f}-list`}
          hint={
            list
              ? `The campaign's items among the trajectories ${list.search} selects`
              : "Paste the trajectory list's address or query; empty: the whole campaign"
          }
        >
          <TextInput
            id={`${f}-list`}
            className="field font-mono"
            placeholder="?site=shop&human=success"
            value={listText}
            testId="stress-filter"
            onText={setListText}
          />
        </Field>
        <p className="text-[12px] text-zinc-600 sm:col-span-2 lg:col-span-4" data-testid="stress-prompt">
          Asks with {promptVersion ? promptVersion.label : "the configuration's own prompt"}.
        </p>
      </section>

      <section className="panel grid gap-3 px-4 py-3 sm:grid-cols-2 lg:grid-cols-4" aria-label="Perturbations">
        <h2 className="section-title sm:col-span-2 lg:col-span-4">2 · Perturbations</h2>
        <fieldset className="flex flex-col gap-1.5 sm:col-span-2">
          <legend className="sr-only">Perturbations</legend>
          {PERTURBATION_KINDS.map((kind) => (
            <label key={kind} className="flex items-center gap-2 text-[13px]">
              <input
                type="checkbox"
                checked={kinds[kind]}
                onChange={(ev) => setKinds({ ...kinds, [kind]: ev.target.checked })}
                data-testid={`perturb-${kind}`}
              />
              {PERTURBATION_LABELS[kind]}
            </label>
          ))}
        </fieldset>
        <Field label="Subset k" htmlFor={`${f}-subset`} hint="Screenshots a random subset keeps">
          <TextInput id={`${f}-subset`} inputMode="numeric" value={subsetK} onText={setSubsetK} />
        </Field>
        <SeedField id={`${f}-seed`} value={seed} onText={setSeed} hint="The same seed shows each trajectory the same screenshots" />
      </section>

      <DryRunSection
        testIds={{ estimate: "stress-estimate", dryRun: "stress-dry-run" }}
        problem={problem}
        idleText="Run a dry run to see what the test would ask and cost, before anything is called."
        asked={dryRun.asked}
        dryRunError={plan.error}
        result={p && <PlanView plan={p} />}
        start={{
          error: start.error,
          button: (
            <StartButton
              testId="stress-start"
              calls={p?.estimate.calls}
              pending={start.isPending}
              disabled={!input || !p}
              title={!p ? "Run a dry run first" : undefined}
              onStart={() => input && start.mutate(input)}
            />
          ),
        }}
      />
    </PageForm>
  );
}

function PlanView({ plan }: { plan: Plan }) {
  const label = (variant: string) => (variant === plan.base ? "unperturbed" : (plan.perturbations.find((x) => x.variant === variant)?.label ?? variant));
  return (
    <div className="flex flex-col gap-2">
      <p className="text-zinc-700">
        {formatCount(plan.trajectoryIds.length)} labelled item{plan.trajectoryIds.length === 1 ? "" : "s"} of {plan.campaignName}
        {plan.outsideSelection > 0 && ` selected by the list filter (${formatCount(plan.outsideSelection)} outside it)`}
        {plan.leftOut.length > 0 && ` (${formatCount(plan.leftOut.length)} left out: no consolidated success or failure)`}, asked{" "}
        {plan.perturbations.length + 1} ways at k = {plan.k}.
      </p>
      <EstimateFigures
        estimate={plan.estimate}
        rows={plan.estimate.perVariant.map((v) => ({ key: v.variant, label: label(v.variant), calls: v.calls, images: v.images, existing: v.existing }))}
      />
      <SkippedWays skipped={plan.skipped} className="text-[12px] text-amber-800" testId="stress-skipped" />
    </div>
  );
}
