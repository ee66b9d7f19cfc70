"use client";
/**
 * A new alignment study: a name, a judge configuration, a labelled campaign, k, the share held out and the seed.
 * The split is made once, when the study is created, and opens on the study's page.
 */
import { useMutation, useSuspenseQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { useTRPC } from "../../../_trpc/client";
import { Field, PageForm, TextInput } from "../../../_components/field";
import { errorText } from "../_lib/error-text";
import { CampaignPicker, ConfigPicker } from "./judge-pickers";
import { SeedField } from "./dry-run";

export function AlignmentCreate() {
  const trpc = useTRPC();
  const router = useRouter();
  const { data: configs } = useSuspenseQuery(trpc.judge.configs.list.queryOptions());
  const { data: campaigns } = useSuspenseQuery(trpc.campaigns.list.queryOptions());
  const [name, setName] = useState("");
  const [configId, setConfigId] = useState<number | null>(configs[0]?.id ?? null);
  const [campaignId, setCampaignId] = useState<number | null>(campaigns[0]?.id ?? null);
  const [k, setK] = useState("3");
  const [share, setShare] = useState("0.5");
  const [seed, setSeed] = useState("1");
  const create = useMutation(trpc.judge.alignment.create.mutationOptions({ onSuccess: (r) => router.push(`/judges/alignment/${r.alignment.id}`) }));
  const f = useId();
  const shareValue = Number(share);
  const problem = !name.trim()
    ? "Name the study."
    : configId === null
      ? "Create a judge configuration first."
      : campaignId === null
        ? "Label a campaign first: the split needs people's labels."
        : !(shareValue > 0 && shareValue < 1)
          ? "The held-out share is a number between 0 and 1."
          : !/^\d+$/.test(seed)
            ? "The seed is a whole number from 0."
            : null;
  return (
    <PageForm
      className="panel grid gap-3 px-4 py-3 sm:grid-cols-3 lg:grid-cols-6"
      aria-label="New alignment study"
      onSubmit={() => {
        if (problem === null)
          create.mutate({
            name: name.trim(),
            config: configId!,
            campaign: campaignId!,
            k: k === "full" ? "full" : Number(k),
            heldOutShare: shareValue,
            seed: Number(seed),
          });
      }}
    >
      <h2 className="section-title sm:col-span-3 lg:col-span-6">New study</h2>
      <Field label="Name" htmlFor={`${f}-name`}>
        <TextInput id={`${f}-name`} maxLength={200} value={name} testId="study-name" onText={setName} />
      </Field>
      <ConfigPicker id={`${f}-config`} options={configs} value={configId} onChange={setConfigId} testId="study-config" />
      <CampaignPicker id={`${f}-campaign`} options={campaigns} value={campaignId} onChange={setCampaignId} testId="study-campaign" />
      <Field label="k" htmlFor={`${f}-k`} hint="Final screenshots shown">
        <select id={`${f}-k`} className="field" value={k} onChange={(ev) => setK(ev.target.value)} data-testid="study-k">
          {["1", "2", "3", "full"].map((x) => (
            <option key={x} value={x}>
              {x === "full" ? "full trajectory" : `k = ${x}`}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Held-out share" htmlFor={`${f}-share`} hint="Of the labelled items">
        <TextInput id={`${f}-share`} inputMode="decimal" value={share} onText={setShare} />
      </Field>
      <SeedField id={`${f}-seed`} value={seed} onText={setSeed} hint="Same seed, same split" testId="study-seed" />
      <div className="flex flex-wrap items-center gap-2 sm:col-span-3 lg:col-span-6">
        <button type="submit" className="btn btn-on" disabled={problem !== null || create.isPending} data-testid="create-study">
          {create.isPending ? "Splitting…" : "Create study and split"}
        </button>
        <span
          className={`text-[12px] ${create.isError ? "text-rose-700" : "text-zinc-500"}`}
          role={create.isError ? "alert" : undefined}
          data-testid="study-problem"
        >
          {create.isError ? errorText(create.error) : problem}
        </span>
      </div>
    </PageForm>
  );
}
