"use client";
/**
 * Judge configurations: the list, a form to create one, and a write-only key field per configuration. Keys go to
 * the server and never come back: the list only says where a configuration's key comes from.
 */
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useId, useState } from "react";
import { EmptyState, formatDate } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { Field, PageForm, RecordOptions } from "../../../_components/field";
import { errorText } from "../_lib/error-text";
import { judgeConfigFormProblems, type JudgeConfigFormProblems, type JudgeConfigFormText } from "@/server/domain/evaluation/judge-config-form";
import { JUDGE_PROTOCOLS, type JudgeProtocolId } from "@/server/domain/evaluation/judge-protocol";
import { DEFAULT_RELEVANCE_THRESHOLD } from "@/server/domain/evaluation/staged-protocols";
import { DenseTable } from "../../../_components/table";

export function JudgeConfigs() {
  const trpc = useTRPC();
  const { data: configs } = useSuspenseQuery(trpc.judge.configs.list.queryOptions());
  const [creating, setCreating] = useState(false);
  return (
    <section className="panel" aria-labelledby="configs-title">
      <div className="flex items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2">
        <h2 id="configs-title" className="section-title">
          Configurations
        </h2>
        {!creating && (
          <button type="button" className="btn" onClick={() => setCreating(true)} data-testid="new-config">
            New configuration
          </button>
        )}
      </div>
      {creating && <NewConfigForm onDone={() => setCreating(false)} />}
      {configs.length === 0 && !creating ? (
        <EmptyState title="No judge configurations yet">
          A configuration names an OpenAI-compatible endpoint, a model and how trajectories are shown to it. Create one to grade trajectories.
        </EmptyState>
      ) : (
        configs.length > 0 && (
          <div className="overflow-x-auto">
            <DenseTable
              columns={["Name", "Protocol", "Model", "Endpoint", "Screenshots", "Key", "Prices (USD / M tokens)", "Updated", ""]}
              testId="config-table"
            >
              {configs.map((c) => (
                <tr key={c.id} data-testid={`config-${c.name}`}>
                  <td className="font-medium text-zinc-900">{c.name}</td>
                  <td className="text-[12px]" data-testid="config-protocol">
                    {protocolName(c.protocol)}
                    {c.protocol === "key-points" ? ` (≥ ${c.options.relevanceThreshold ?? DEFAULT_RELEVANCE_THRESHOLD})` : ""}
                    {c.protocol === "webvoyager" && c.options.askCitations ? ", cites steps" : ""}
                  </td>
                  <td className="font-mono text-[12px]">{c.model}</td>
                  <td className="max-w-[16rem] truncate font-mono text-[12px]" title={c.baseUrl ?? "OpenAI API"}>
                    {c.baseUrl ?? "OpenAI API"}
                  </td>
                  <td className="text-[12px]">
                    {c.options.screenshots}, detail {c.options.imageDetail}
                    {c.options.maxImageSide ? `, ≤ ${c.options.maxImageSide} px` : ""}
                  </td>
                  <td className="text-[12px]">
                    <KeyCell id={c.id} name={c.name} source={c.apiKeySource} />
                  </td>
                  <td className="text-[12px] tabular-nums">
                    {c.priceInputPerMTok != null && c.priceOutputPerMTok != null ? `${c.priceInputPerMTok} in · ${c.priceOutputPerMTok} out` : "–"}
                  </td>
                  <td className="text-[12px] whitespace-nowrap text-zinc-500">{formatDate(c.updatedAt)}</td>
                  <td className="text-right whitespace-nowrap">
                    <Link className="btn" href={`/judges/batch?config=${c.id}`}>
                      Run a batch
                    </Link>
                  </td>
                </tr>
              ))}
            </DenseTable>
          </div>
        )
      )}
    </section>
  );
}

/** Where the key comes from, and a field to store a new one (the stored key itself is never shown). */
function KeyCell({ id, name, source }: { id: number; name: string; source: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [key, setKey] = useState("");
  const inputId = useId();
  const save = useMutation(
    trpc.judge.configs.setApiKey.mutationOptions({
      onSuccess: async () => {
        setKey("");
        setOpen(false);
        await queryClient.invalidateQueries(trpc.judge.configs.list.queryFilter());
      },
    }),
  );
  const label = source === "stored" ? "stored on the server" : source.startsWith("none:") ? source.slice(6) : `from ${source.slice(4).replace("|", " or ")}`;
  if (!open) {
    return (
      <span className="flex items-center gap-2">
        <span className={source.startsWith("none:") ? "text-rose-700" : "text-zinc-700"} data-testid="key-source">
          {label}
        </span>
        <button type="button" className="link text-2xs" onClick={() => setOpen(true)}>
          {source === "stored" ? "replace" : "store a key"}
        </button>
      </span>
    );
  }
  return (
    <PageForm
      className="flex items-center gap-1"
      onSubmit={() => {
        if (key.trim()) save.mutate({ id, apiKey: key });
      }}
    >
      <label htmlFor={inputId} className="sr-only">
        API key for {name}
      </label>
      <input id={inputId} type="password" autoComplete="off" className="field w-40" value={key} onChange={(e) => setKey(e.target.value)} autoFocus />
      <button type="submit" className="btn" disabled={save.isPending || !key.trim()}>
        Save
      </button>
      <button type="button" className="btn" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {source === "stored" && (
        <button
          type="button"
          className="btn"
          onClick={() => save.mutate({ id, apiKey: null })}
          title="Delete the stored key; the environment's key is used again"
        >
          Remove
        </button>
      )}
      {save.isError && <span className="text-2xs text-rose-700">{errorText(save.error)}</span>}
    </PageForm>
  );
}

function protocolName(id: string): string {
  return JUDGE_PROTOCOLS.find((p) => p.id === id)?.name ?? id;
}

type ProtocolChoice = { protocol: JudgeProtocolId; threshold: string; cite: boolean };

/** The protocol select, with what it does, the key-point threshold and the WebVoyager citation switch. */
function ProtocolFields({ id, value, onChange, problem }: { id: string; value: ProtocolChoice; onChange: (v: ProtocolChoice) => void; problem?: string }) {
  const chosen = JUDGE_PROTOCOLS.find((p) => p.id === value.protocol)!;
  return (
    <>
      <Field label="Protocol" htmlFor={`${id}-protocol`} hint={chosen.summary}>
        <select
          id={`${id}-protocol`}
          className="field"
          value={value.protocol}
          onChange={(e) => onChange({ ...value, protocol: e.target.value as JudgeProtocolId })}
          data-testid="config-protocol-select"
        >
          <RecordOptions items={JUDGE_PROTOCOLS} value={(p) => p.id} text={(p) => p.name} />
        </select>
      </Field>
      {value.protocol === "key-points" ? (
        <Field
          label="Relevance threshold (1–5)"
          htmlFor={`${id}-threshold`}
          hint="screenshots scored at least this are shown for the outcome; WebJudge uses 3"
          problem={problem}
        >
          <input
            id={`${id}-threshold`}
            className="field"
            inputMode="numeric"
            value={value.threshold}
            onChange={(e) => onChange({ ...value, threshold: e.target.value })}
            {...invalidIf(problem, `${id}-threshold`)}
          />
        </Field>
      ) : value.protocol === "webvoyager" ? (
        <div className="flex items-center text-[12px] text-zinc-700">
          <label
            className="flex items-center gap-2"
            title="The judge cites the steps (and regions) its verdict rests on; the player links them. The staged protocols always ask."
          >
            <input type="checkbox" checked={value.cite} onChange={(e) => onChange({ ...value, cite: e.target.checked })} /> Ask the judge to cite steps
          </label>
        </div>
      ) : (
        <div />
      )}
    </>
  );
}

function optionalNumber(text: string): number | null {
  return text.trim() === "" ? null : Number(text);
}

/** The form as typed: text fields stay text until sent, so what was typed is checked as typed. */
type ConfigDraft = Omit<JudgeConfigFormText, "relevanceThreshold"> & {
  model: string;
  apiKey: string;
  screenshots: "marked" | "raw";
  imageDetail: "auto" | "low" | "high";
  history: boolean;
  thoughts: boolean;
  askStep: boolean;
  noAnswer: boolean;
  protocol: ProtocolChoice;
};

const EMPTY_DRAFT: ConfigDraft = {
  name: "",
  baseUrl: "",
  model: "",
  apiKey: "",
  temperature: "0",
  maxOutputTokens: "1024",
  screenshots: "marked",
  imageDetail: "auto",
  maxImageSide: "",
  history: true,
  thoughts: false,
  askStep: false,
  noAnswer: false,
  priceInputPerMTok: "",
  priceOutputPerMTok: "",
  protocol: { protocol: "webvoyager", threshold: String(DEFAULT_RELEVANCE_THRESHOLD), cite: false },
};

function formText(d: ConfigDraft): JudgeConfigFormText {
  return { ...d, relevanceThreshold: d.protocol.protocol === "key-points" ? d.protocol.threshold : null };
}

function createInput(d: ConfigDraft) {
  return {
    name: d.name.trim(),
    baseUrl: d.baseUrl.trim() === "" ? null : d.baseUrl.trim(),
    model: d.model.trim() || undefined,
    apiKey: d.apiKey.trim() || undefined,
    temperature: Number(d.temperature),
    maxOutputTokens: Number(d.maxOutputTokens),
    promptVersion: d.protocol.protocol,
    options: {
      screenshots: d.screenshots,
      imageDetail: d.imageDetail,
      maxImageSide: optionalNumber(d.maxImageSide),
      includeActionHistory: d.history,
      includeThoughts: d.history && d.thoughts,
      askFirstFailingStep: d.askStep,
      withoutFinalAnswer: d.noAnswer,
      ...(d.protocol.protocol === "key-points" ? { relevanceThreshold: Number(d.protocol.threshold) } : {}),
      ...(d.protocol.protocol === "webvoyager" && d.protocol.cite ? { askCitations: true } : {}),
    },
    priceInputPerMTok: optionalNumber(d.priceInputPerMTok),
    priceOutputPerMTok: optionalNumber(d.priceOutputPerMTok),
  };
}

const FORM_FIELDS = new Set<string>([
  "name",
  "baseUrl",
  "model",
  "apiKey",
  "temperature",
  "maxOutputTokens",
  "maxImageSide",
  "priceInputPerMTok",
  "priceOutputPerMTok",
  "relevanceThreshold",
]);

/**
 * A refusal from the server, beside the field it is about: the field the service names, a name already taken, or
 * the schema's field (said in the form's words where the form has its own check). Anything else is the form's.
 */
function serverProblems(error: unknown, draft: ConfigDraft): JudgeConfigFormProblems {
  const data = (error as { data?: { field?: string | null; code?: string; zodError?: { fieldErrors?: Record<string, string[] | undefined> } | null } } | null)
    ?.data;
  const message = error instanceof Error ? error.message : String(error);
  const field = data?.field?.replace(/^options\./, "");
  if (field && FORM_FIELDS.has(field)) return { [field]: message };
  if (data?.code === "CONFLICT") return { name: message };
  const own = judgeConfigFormProblems(formText(draft));
  const fromSchema = Object.keys(data?.zodError?.fieldErrors ?? {}).filter((f) => FORM_FIELDS.has(f));
  if (fromSchema.length) return Object.fromEntries(fromSchema.map((f) => [f, own[f as keyof JudgeConfigFormProblems] ?? "This value was refused."]));
  return { form: errorText(error) };
}

/** The draft and its problems; changing a field clears what was said about it (a message is never stale). */
function useConfigDraft() {
  const [draft, setDraft] = useState<ConfigDraft>(EMPTY_DRAFT);
  const [problems, setProblems] = useState<JudgeConfigFormProblems>({});
  const set = useCallback(<K extends keyof ConfigDraft>(key: K, value: ConfigDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    const cleared = key === "protocol" ? "relevanceThreshold" : key;
    setProblems((p) => (cleared in p || "form" in p ? Object.fromEntries(Object.entries(p).filter(([k]) => k !== cleared && k !== "form")) : p));
  }, []);
  return { draft, set, problems, setProblems };
}

/** aria attributes of an input whose field may have a problem. */
function invalidIf(problem: string | undefined, id: string) {
  return problem ? { "aria-invalid": true as const, "aria-describedby": `${id}-problem` } : {};
}

const TEST_TONE: Record<string, string> = {
  "model-found": "text-emerald-700",
  reachable: "text-zinc-700",
  "model-missing": "text-amber-700",
};

/** "Test this endpoint": one call to the typed endpoint through the server, said in plain words; a result is dropped when the fields change. */
function EndpointTest({ baseUrl, model, apiKey }: { baseUrl: string; model: string; apiKey: string }) {
  const trpc = useTRPC();
  const test = useMutation(trpc.judge.configs.testEndpoint.mutationOptions());
  const asked = JSON.stringify([baseUrl.trim(), model.trim(), apiKey.trim()]);
  const [testedFor, setTestedFor] = useState<string | null>(null);
  const result = testedFor === asked ? test.data : undefined;
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 sm:col-span-2 lg:col-span-4">
      <button
        type="button"
        className="btn"
        disabled={test.isPending}
        onClick={() => {
          setTestedFor(asked);
          test.mutate({ baseUrl: baseUrl.trim() || null, model: model.trim() || null, apiKey: apiKey.trim() || undefined });
        }}
        data-testid="test-endpoint"
      >
        {test.isPending ? "Testing…" : "Test this endpoint"}
      </button>
      {result && !test.isPending && (
        <p
          role="status"
          className={`min-w-0 flex-1 text-[12px] ${TEST_TONE[result.outcome] ?? "text-rose-700"}`}
          data-testid="endpoint-test"
          data-outcome={result.outcome}
        >
          {result.message}
        </p>
      )}
      {test.isError && testedFor === asked && !test.isPending && (
        <p role="alert" className="min-w-0 flex-1 text-[12px] text-rose-700">
          {errorText(test.error)}
        </p>
      )}
    </div>
  );
}

/**
 * The create form. It checks what was typed before sending (in plain words, beside each field) and shows the server's
 * refusals beside their field too (the host allowlist, a name already taken).
 */
function NewConfigForm({ onDone }: { onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { draft: d, set, problems, setProblems } = useConfigDraft();
  const create = useMutation(
    trpc.judge.configs.create.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.judge.configs.list.queryFilter());
        onDone();
      },
      onError: (e) => setProblems(serverProblems(e, d)),
    }),
  );
  const f = useId();
  const p = problems;
  return (
    <PageForm
      className="grid gap-3 border-b border-zinc-200 bg-zinc-50/60 px-3 py-3 sm:grid-cols-2 lg:grid-cols-4"
      aria-label="New judge configuration"
      noValidate
      onSubmit={() => {
        const found = judgeConfigFormProblems(formText(d));
        setProblems(found);
        if (Object.keys(found).length === 0) create.mutate(createInput(d));
      }}
    >
      <Field label="Name" htmlFor={`${f}-name`} problem={p.name}>
        <input
          id={`${f}-name`}
          className="field"
          value={d.name}
          onChange={(e) => set("name", e.target.value)}
          autoFocus
          placeholder="gpt-4o, marked screenshots"
          {...invalidIf(p.name, `${f}-name`)}
        />
      </Field>
      <Field label="Model" htmlFor={`${f}-model`} hint="empty = VERDICT_JUDGE_MODEL" problem={p.model}>
        <input id={`${f}-model`} className="field font-mono" value={d.model} onChange={(e) => set("model", e.target.value)} placeholder="gpt-4o" />
      </Field>
      <Field
        label="Endpoint base URL"
        htmlFor={`${f}-url`}
        hint="OpenAI-compatible, ending in /v1; empty = the OpenAI API. Admins decide which hosts are allowed."
        problem={p.baseUrl}
      >
        <input
          id={`${f}-url`}
          className="field font-mono"
          type="url"
          value={d.baseUrl}
          onChange={(e) => set("baseUrl", e.target.value)}
          placeholder="https://api.openai.com/v1"
          {...invalidIf(p.baseUrl, `${f}-url`)}
        />
      </Field>
      <Field
        label="API key"
        htmlFor={`${f}-key`}
        hint="Write-only: stored encrypted for this endpoint, never shown again. Empty = the server's environment key."
        problem={p.apiKey}
      >
        <input id={`${f}-key`} className="field" type="password" autoComplete="off" value={d.apiKey} onChange={(e) => set("apiKey", e.target.value)} />
      </Field>
      <EndpointTest baseUrl={d.baseUrl} model={d.model} apiKey={d.apiKey} />
      <ProtocolFields id={f} value={d.protocol} onChange={(v) => set("protocol", v)} problem={p.relevanceThreshold} />
      <ImageFields id={f} draft={d} set={set} problems={p} />
      <PromptChoices draft={d} set={set} />
      <NumberFields id={f} draft={d} set={set} problems={p} />
      <div className="flex flex-wrap items-center gap-2 sm:col-span-2 lg:col-span-4">
        <button type="submit" className="btn btn-on" disabled={create.isPending} data-testid="create-config">
          {create.isPending ? "Creating…" : "Create configuration"}
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        {(p.form || Object.keys(p).length > 0) && (
          <p role="alert" className="text-[12px] text-rose-700" data-testid="config-error">
            {p.form ?? "Please correct the fields marked in red."}
          </p>
        )}
      </div>
    </PageForm>
  );
}

type DraftSetter = <K extends keyof ConfigDraft>(key: K, value: ConfigDraft[K]) => void;

/** How screenshots are sent: marked or raw, the detail asked for, and the longest side. */
function ImageFields({ id, draft: d, set, problems: p }: { id: string; draft: ConfigDraft; set: DraftSetter; problems: JudgeConfigFormProblems }) {
  return (
    <>
      <Field
        label="Screenshots"
        htmlFor={`${id}-shots`}
        hint={d.screenshots === "marked" ? "with the numbered boxes, as the agent saw them" : "as recorded, without boxes"}
      >
        <select id={`${id}-shots`} className="field" value={d.screenshots} onChange={(e) => set("screenshots", e.target.value as "marked" | "raw")}>
          <option value="marked">marked (set-of-marks)</option>
          <option value="raw">raw</option>
        </select>
      </Field>
      <Field label="Image detail" htmlFor={`${id}-detail`}>
        <select id={`${id}-detail`} className="field" value={d.imageDetail} onChange={(e) => set("imageDetail", e.target.value as "auto" | "low" | "high")}>
          <option value="auto">auto</option>
          <option value="low">low</option>
          <option value="high">high</option>
        </select>
      </Field>
      <Field label="Longest image side (px)" htmlFor={`${id}-side`} hint="empty = as recorded" problem={p.maxImageSide}>
        <input
          id={`${id}-side`}
          className="field"
          inputMode="numeric"
          value={d.maxImageSide}
          onChange={(e) => set("maxImageSide", e.target.value)}
          {...invalidIf(p.maxImageSide, `${id}-side`)}
        />
      </Field>
    </>
  );
}

/** What the prompt holds besides the screenshots. */
function PromptChoices({ draft: d, set }: { draft: ConfigDraft; set: DraftSetter }) {
  return (
    <div className="flex flex-col justify-center gap-1 text-[12px] text-zinc-700">
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={d.history} onChange={(e) => set("history", e.target.checked)} /> Include the action history
      </label>
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={d.history && d.thoughts} disabled={!d.history} onChange={(e) => set("thoughts", e.target.checked)} /> Include the
        agent’s thoughts
      </label>
      <label
        className="flex items-center gap-2"
        title="When the judge says failure it also names the first step that went wrong; compared with humans on the judge agreement page"
      >
        <input type="checkbox" checked={d.askStep} onChange={(e) => set("askStep", e.target.checked)} data-testid="ask-first-step" /> Ask for the first failing
        step
      </label>
      <label
        className="flex items-center gap-2"
        title="Online-Mind2Web's hygiene check: the judge decides from actions and screenshots only; compare with the same judge given the answer"
      >
        <input type="checkbox" checked={d.noAnswer} onChange={(e) => set("noAnswer", e.target.checked)} data-testid="without-answer" /> Without the agent’s
        final answer
      </label>
    </div>
  );
}

/** Temperature, output length and prices. */
function NumberFields({ id, draft: d, set, problems: p }: { id: string; draft: ConfigDraft; set: DraftSetter; problems: JudgeConfigFormProblems }) {
  const fields = [
    ["temperature", "Temperature", "decimal", "0 to 2"],
    ["maxOutputTokens", "Max output tokens", "numeric", undefined],
    ["priceInputPerMTok", "Input price (USD / M tokens)", "decimal", "for cost estimates; optional"],
    ["priceOutputPerMTok", "Output price (USD / M tokens)", "decimal", undefined],
  ] as const;
  return (
    <>
      {fields.map(([key, label, mode, hint]) => (
        <Field key={key} label={label} htmlFor={`${id}-${key}`} hint={hint} problem={p[key]}>
          <input
            id={`${id}-${key}`}
            className="field"
            inputMode={mode}
            value={d[key]}
            onChange={(e) => set(key, e.target.value)}
            {...invalidIf(p[key], `${id}-${key}`)}
          />
        </Field>
      ))}
    </>
  );
}
