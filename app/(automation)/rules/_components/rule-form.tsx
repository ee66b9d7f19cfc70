"use client";
/**
 * Writing or changing an automation rule. The filter is the trajectory list's own filter text and is read as it is
 * typed, with the same reader the server uses, so a key the list does not know or a value it would drop is named
 * beside the field before saving; the server checks everything again on save (the campaign still open, the judge
 * configuration still there, the author allowed to filter by labels) and its refusal is shown beside the field it
 * is about.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { parseRuleFilter, RULE_TRIGGER_LABELS, RULE_TRIGGERS, type RuleTrigger } from "@/server/domain/automation/rules";
import { useTRPC } from "../../../_trpc/client";
import type { RuleView } from "./rule-view";

type Errors = Record<string, string>;

/** The field a refusal belongs to: the one the server named, a clash of names, or the form as a whole. */
function errorsOf(e: unknown): Errors {
  const data = (e as { data?: { field?: string | null; code?: string } } | null)?.data;
  const field = data?.field ?? (data?.code === "CONFLICT" ? "name" : "form");
  const text = (e as Error).message;
  return { [field]: text.startsWith(`${field}: `) ? text.slice(field.length + 2) : text };
}

/** The filter's problem as the server would word it, or null when the list reads it. */
function filterProblem(text: string): string | null {
  try {
    parseRuleFilter(text);
    return null;
  } catch (e) {
    return (e as Error).message.replace(/^filter: /, "");
  }
}

function FieldError({ errors, name }: { errors: Errors; name: string }) {
  return errors[name] ? (
    <span role="alert" id={`rule-error-${name}`} className="text-[12px] font-normal text-rose-700" data-testid={`rule-error-${name}`}>
      {errors[name]}
    </span>
  ) : null;
}

const label = "flex flex-col gap-1 text-[12px] font-medium text-zinc-700";

export function RuleForm({ initial, onDone }: { initial?: RuleView; onDone: (savedId: number | null) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const f = useId();
  const campaigns = useQuery(trpc.campaigns.list.queryOptions());
  const configs = useQuery(trpc.judge.configs.list.queryOptions());
  const [name, setName] = useState(initial?.name ?? "");
  const [filterText, setFilterText] = useState(initial?.filterText ?? "");
  const [triggers, setTriggers] = useState<RuleTrigger[]>(initial?.triggers ?? ["import", "push"]);
  const [share, setShare] = useState(String(initial?.sharePercent ?? 100));
  const [seed, setSeed] = useState(String(initial?.seed ?? 1));
  const [kind, setKind] = useState<"campaign" | "judge">(initial?.action.kind ?? "campaign");
  const [campaignId, setCampaignId] = useState(initial?.action.kind === "campaign" ? String(initial.action.campaignId) : "");
  const [configId, setConfigId] = useState(initial?.action.kind === "judge" ? String(initial.action.judgeConfigId) : "");
  const [k, setK] = useState(initial?.action.kind === "judge" ? initial.action.k : "3");
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const [serverErrors, setServerErrors] = useState<Errors>({});
  const liveFilterProblem = filterProblem(filterText);
  const errors: Errors = { ...serverErrors, ...(liveFilterProblem ? { filter: liveFilterProblem } : {}) };
  const options = {
    onError: (e: unknown) => setServerErrors(errorsOf(e)),
    onSuccess: async (rule: { id: number }) => {
      setServerErrors({});
      await queryClient.invalidateQueries({ queryKey: trpc.automation.pathKey() });
      onDone(rule.id);
    },
  };
  const create = useMutation(trpc.automation.create.mutationOptions(options));
  const update = useMutation(trpc.automation.update.mutationOptions(options));
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (liveFilterProblem) return;
    const action = kind === "campaign" ? { kind, campaignId: Number(campaignId) || 0 } : { kind, judgeConfigId: Number(configId) || 0, k };
    const draft = { name, filterText, triggers, sharePercent: Number(share), seed: Number(seed), action, enabled };
    // An empty or unreadable number goes to the server as NaN-free values it refuses by name.
    if (!Number.isFinite(draft.sharePercent)) draft.sharePercent = -1;
    if (!Number.isInteger(draft.seed)) draft.seed = -1;
    if (initial) update.mutate({ ...draft, id: initial.id });
    else create.mutate(draft);
  };
  const openCampaigns = (campaigns.data ?? []).filter((c) => c.status !== "closed" || String(c.id) === campaignId);
  const describedBy = (field: string) => describedByOf(errors, field);
  return (
    <form
      className="panel flex flex-col gap-3 px-4 py-3"
      onSubmit={submit}
      aria-label={initial ? `Edit rule ${initial.name}` : "New rule"}
      data-testid="rule-form"
    >
      <h2 className="text-[14px] font-semibold">{initial ? `Edit “${initial.name}”` : "New rule"}</h2>
      <div className="grid gap-3 lg:grid-cols-[minmax(0,1fr)_minmax(0,2fr)]">
        <label className={label} htmlFor={`${f}-name`}>
          Name
          <input
            id={`${f}-name`}
            className="field font-normal"
            value={name}
            maxLength={200}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={!!errors.name}
            aria-describedby={describedBy("name")}
            data-testid="rule-name"
            autoFocus
          />
          <FieldError errors={errors} name="name" />
        </label>
        <label className={label} htmlFor={`${f}-filter`}>
          Filter (the trajectory list&apos;s filter text or address; empty matches every arrival)
          <input
            id={`${f}-filter`}
            className="field font-mono font-normal"
            value={filterText}
            placeholder="site=shopping&rule=failure"
            onChange={(e) => {
              setFilterText(e.target.value);
              setServerErrors(({ filter: _filter, ...rest }) => rest);
            }}
            aria-invalid={!!errors.filter}
            aria-describedby={describedBy("filter")}
            data-testid="rule-filter"
          />
          <FieldError errors={errors} name="filter" />
          {!errors.filter && filterText.trim() && (
            <Link className="link text-[12px] font-normal" href={`/trajectories?${parseFilterQuery(filterText)}`} target="_blank">
              What it matches among the trajectories already here
            </Link>
          )}
        </label>
      </div>
      <WhenAndShare f={f} triggers={triggers} setTriggers={setTriggers} share={share} setShare={setShare} seed={seed} setSeed={setSeed} errors={errors} />
      <ActionFields
        f={f}
        kind={kind}
        setKind={setKind}
        campaignId={campaignId}
        setCampaignId={setCampaignId}
        campaigns={openCampaigns}
        configId={configId}
        setConfigId={setConfigId}
        configs={configs.data ?? []}
        k={k}
        setK={setK}
        errors={errors}
      />
      <label className="flex items-center gap-1.5 text-[12.5px]">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Enabled (a paused rule does not look at arrivals)
      </label>
      <FieldError errors={errors} name="form" />
      <FieldError errors={errors} name="action" />
      <div className="flex gap-2">
        <button type="submit" className="btn btn-on" disabled={create.isPending || update.isPending} data-testid="save-rule">
          {initial ? "Save changes" : "Create rule"}
        </button>
        <button type="button" className="btn" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The filter as a list address's query, for the link that shows what it matches now. */
function parseFilterQuery(text: string): string {
  const trimmed = text.trim();
  return trimmed.includes("?") ? trimmed.slice(trimmed.indexOf("?") + 1) : trimmed;
}

function ActionFields(p: {
  f: string;
  kind: "campaign" | "judge";
  setKind: (k: "campaign" | "judge") => void;
  campaignId: string;
  setCampaignId: (v: string) => void;
  campaigns: { id: number; name: string; status: string }[];
  configId: string;
  setConfigId: (v: string) => void;
  configs: { id: number; name: string }[];
  k: string;
  setK: (v: string) => void;
  errors: Errors;
}) {
  return (
    <fieldset className="flex flex-col gap-2 text-[12.5px]">
      <legend className="mb-1 text-[12px] font-medium text-zinc-700">What it does with the share</legend>
      <div className="flex flex-wrap items-start gap-x-6 gap-y-2">
        <label className="flex items-center gap-1.5">
          <input type="radio" name={`${p.f}-kind`} checked={p.kind === "campaign"} onChange={() => p.setKind("campaign")} />
          Add to a campaign
        </label>
        <label className="flex items-center gap-1.5">
          <input type="radio" name={`${p.f}-kind`} checked={p.kind === "judge"} onChange={() => p.setKind("judge")} />
          Start a judge batch
        </label>
      </div>
      {p.kind === "campaign" ? (
        <label className={label} htmlFor={`${p.f}-campaign`}>
          Campaign
          <select
            id={`${p.f}-campaign`}
            className="field w-80 font-normal"
            value={p.campaignId}
            onChange={(e) => p.setCampaignId(e.target.value)}
            aria-invalid={!!p.errors.campaign}
            data-testid="rule-campaign"
          >
            <option value="">Choose a campaign…</option>
            {p.campaigns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
                {c.status === "closed" ? " (closed)" : ""}
              </option>
            ))}
          </select>
          <FieldError errors={p.errors} name="campaign" />
        </label>
      ) : (
        <div className="flex flex-wrap gap-4">
          <label className={label} htmlFor={`${p.f}-config`}>
            Judge configuration
            <select
              id={`${p.f}-config`}
              className="field w-80 font-normal"
              value={p.configId}
              onChange={(e) => p.setConfigId(e.target.value)}
              aria-invalid={!!p.errors.judge}
            >
              <option value="">Choose a judge…</option>
              {p.configs.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
            <FieldError errors={p.errors} name="judge" />
          </label>
          <label className={label} htmlFor={`${p.f}-k`}>
            Screenshots shown (k, or full)
            <input id={`${p.f}-k`} className="field w-24 font-normal" value={p.k} onChange={(e) => p.setK(e.target.value)} aria-invalid={!!p.errors.k} />
            <FieldError errors={p.errors} name="k" />
          </label>
        </div>
      )}
    </fieldset>
  );
}

function describedByOf(errors: Errors, field: string) {
  return errors[field] ? `rule-error-${field}` : undefined;
}

/** When the rule runs, and the seeded share of the matches it takes. */
function WhenAndShare({
  f,
  triggers,
  setTriggers,
  share,
  setShare,
  seed,
  setSeed,
  errors,
}: {
  f: string;
  triggers: RuleTrigger[];
  setTriggers: (t: RuleTrigger[]) => void;
  share: string;
  setShare: (v: string) => void;
  seed: string;
  setSeed: (v: string) => void;
  errors: Errors;
}) {
  return (
    <div className="flex flex-wrap gap-x-8 gap-y-3">
      <fieldset className="flex flex-col gap-1 text-[12.5px]" aria-describedby={describedByOf(errors, "triggers")}>
        <legend className="mb-1 text-[12px] font-medium text-zinc-700">Runs when trajectories arrive from</legend>
        <div className="flex gap-3">
          {RULE_TRIGGERS.map((t) => (
            <label key={t} className="flex items-center gap-1.5">
              <input
                type="checkbox"
                checked={triggers.includes(t)}
                onChange={() => setTriggers(triggers.includes(t) ? triggers.filter((x) => x !== t) : [...triggers, t])}
              />
              {RULE_TRIGGER_LABELS[t]}
            </label>
          ))}
        </div>
        <FieldError errors={errors} name="triggers" />
      </fieldset>
      <label className={label} htmlFor={`${f}-share`}>
        Share of the matches (%)
        <input
          id={`${f}-share`}
          className="field w-24 font-normal"
          inputMode="decimal"
          value={share}
          onChange={(e) => setShare(e.target.value)}
          aria-invalid={!!errors.share}
          aria-describedby={describedByOf(errors, "share")}
          data-testid="rule-share"
        />
        <FieldError errors={errors} name="share" />
      </label>
      <label className={label} htmlFor={`${f}-seed`}>
        Seed of the share
        <input
          id={`${f}-seed`}
          className="field w-28 font-normal"
          inputMode="numeric"
          value={seed}
          onChange={(e) => setSeed(e.target.value)}
          aria-invalid={!!errors.seed}
          aria-describedby={describedByOf(errors, "seed")}
        />
        <FieldError errors={errors} name="seed" />
      </label>
    </div>
  );
}
