"use client";
/**
 * Judge configurations: the list, a form to create one, and a write-only key field per configuration. Keys go to
 * the server and never come back: the list only says where a configuration's key comes from.
 */
import { useMutation, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { EmptyState, formatDate } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { Field } from "../../../live/_components/bits";
import { errorText } from "../_lib/error-text";
import { JUDGE_PROTOCOLS, type JudgeProtocolId } from "@/server/domain/evaluation/judge-protocol";
import { DEFAULT_RELEVANCE_THRESHOLD } from "@/server/domain/evaluation/staged-protocols";

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
            <table className="table-dense" data-testid="config-table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Protocol</th>
                  <th>Model</th>
                  <th>Endpoint</th>
                  <th>Screenshots</th>
                  <th>Key</th>
                  <th>Prices (USD / M tokens)</th>
                  <th>Updated</th>
                  <th />
                </tr>
              </thead>
              <tbody>
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
              </tbody>
            </table>
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
    <form
      className="flex items-center gap-1"
      onSubmit={(e) => {
        e.preventDefault();
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
    </form>
  );
}

function protocolName(id: string): string {
  return JUDGE_PROTOCOLS.find((p) => p.id === id)?.name ?? id;
}

type ProtocolChoice = { protocol: JudgeProtocolId; threshold: string; cite: boolean };

/** The protocol select, with what it does, the key-point threshold and the WebVoyager citation switch. */
function ProtocolFields({ id, value, onChange }: { id: string; value: ProtocolChoice; onChange: (v: ProtocolChoice) => void }) {
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
          {JUDGE_PROTOCOLS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </Field>
      {value.protocol === "key-points" ? (
        <Field label="Relevance threshold (1–5)" htmlFor={`${id}-threshold`} hint="screenshots scored at least this are shown for the outcome; WebJudge uses 3">
          <input
            id={`${id}-threshold`}
            className="field"
            inputMode="numeric"
            value={value.threshold}
            onChange={(e) => onChange({ ...value, threshold: e.target.value })}
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

/** The create form. The server checks everything (host allowlist included); its refusal is shown as it words it. */
function NewConfigForm({ onDone }: { onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [model, setModel] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [temperature, setTemperature] = useState("0");
  const [maxOutputTokens, setMaxOutputTokens] = useState("1024");
  const [screenshots, setScreenshots] = useState<"marked" | "raw">("marked");
  const [imageDetail, setImageDetail] = useState<"auto" | "low" | "high">("auto");
  const [maxImageSide, setMaxImageSide] = useState("");
  const [history, setHistory] = useState(true);
  const [thoughts, setThoughts] = useState(false);
  const [askStep, setAskStep] = useState(false);
  const [noAnswer, setNoAnswer] = useState(false);
  const [priceIn, setPriceIn] = useState("");
  const [priceOut, setPriceOut] = useState("");
  const [protocol, setProtocol] = useState<ProtocolChoice>({ protocol: "webvoyager", threshold: String(DEFAULT_RELEVANCE_THRESHOLD), cite: false });
  const create = useMutation(
    trpc.judge.configs.create.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.judge.configs.list.queryFilter());
        onDone();
      },
    }),
  );
  const f = useId();
  return (
    <form
      className="grid gap-3 border-b border-zinc-200 bg-zinc-50/60 px-3 py-3 sm:grid-cols-2 lg:grid-cols-4"
      aria-label="New judge configuration"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({
          name: name.trim(),
          baseUrl: baseUrl.trim() === "" ? null : baseUrl.trim(),
          model: model.trim() || undefined,
          apiKey: apiKey.trim() || undefined,
          temperature: Number(temperature),
          maxOutputTokens: Number(maxOutputTokens),
          promptVersion: protocol.protocol,
          options: {
            screenshots,
            imageDetail,
            maxImageSide: optionalNumber(maxImageSide),
            includeActionHistory: history,
            includeThoughts: history && thoughts,
            askFirstFailingStep: askStep,
            withoutFinalAnswer: noAnswer,
            ...(protocol.protocol === "key-points" ? { relevanceThreshold: Number(protocol.threshold) } : {}),
            ...(protocol.protocol === "webvoyager" && protocol.cite ? { askCitations: true } : {}),
          },
          priceInputPerMTok: optionalNumber(priceIn),
          priceOutputPerMTok: optionalNumber(priceOut),
        });
      }}
    >
      <Field label="Name" htmlFor={`${f}-name`}>
        <input
          id={`${f}-name`}
          className="field"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          autoFocus
          placeholder="gpt-4o, marked screenshots"
        />
      </Field>
      <Field label="Model" htmlFor={`${f}-model`} hint="empty = VERDICT_JUDGE_MODEL">
        <input id={`${f}-model`} className="field font-mono" value={model} onChange={(e) => setModel(e.target.value)} placeholder="gpt-4o" />
      </Field>
      <Field
        label="Endpoint base URL"
        htmlFor={`${f}-url`}
        hint="OpenAI-compatible, ending in /v1; empty = the OpenAI API. Admins decide which hosts are allowed."
      >
        <input
          id={`${f}-url`}
          className="field font-mono"
          type="url"
          value={baseUrl}
          onChange={(e) => setBaseUrl(e.target.value)}
          placeholder="https://api.openai.com/v1"
        />
      </Field>
      <Field
        label="API key"
        htmlFor={`${f}-key`}
        hint="Write-only: stored encrypted for this endpoint, never shown again. Empty = the server's environment key."
      >
        <input id={`${f}-key`} className="field" type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} />
      </Field>
      <ProtocolFields id={f} value={protocol} onChange={setProtocol} />
      <Field label="Screenshots" htmlFor={`${f}-shots`}>
        <select id={`${f}-shots`} className="field" value={screenshots} onChange={(e) => setScreenshots(e.target.value as "marked" | "raw")}>
          <option value="marked">marked (set-of-marks, as the agent saw them)</option>
          <option value="raw">raw</option>
        </select>
      </Field>
      <Field label="Image detail" htmlFor={`${f}-detail`}>
        <select id={`${f}-detail`} className="field" value={imageDetail} onChange={(e) => setImageDetail(e.target.value as "auto" | "low" | "high")}>
          <option value="auto">auto</option>
          <option value="low">low</option>
          <option value="high">high</option>
        </select>
      </Field>
      <Field label="Longest image side (px)" htmlFor={`${f}-side`} hint="empty = as recorded">
        <input id={`${f}-side`} className="field" inputMode="numeric" value={maxImageSide} onChange={(e) => setMaxImageSide(e.target.value)} />
      </Field>
      <div className="flex flex-col justify-center gap-1 text-[12px] text-zinc-700">
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={history} onChange={(e) => setHistory(e.target.checked)} /> Include the action history
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={history && thoughts} disabled={!history} onChange={(e) => setThoughts(e.target.checked)} /> Include the agent’s
          thoughts
        </label>
        <label
          className="flex items-center gap-2"
          title="When the judge says failure it also names the first step that went wrong; compared with humans on the judge agreement page"
        >
          <input type="checkbox" checked={askStep} onChange={(e) => setAskStep(e.target.checked)} data-testid="ask-first-step" /> Ask for the first failing step
        </label>
        <label
          className="flex items-center gap-2"
          title="Online-Mind2Web's hygiene check: the judge decides from actions and screenshots only; compare with the same judge given the answer"
        >
          <input type="checkbox" checked={noAnswer} onChange={(e) => setNoAnswer(e.target.checked)} data-testid="without-answer" /> Without the agent’s final
          answer
        </label>
      </div>
      <Field label="Temperature" htmlFor={`${f}-temp`}>
        <input id={`${f}-temp`} className="field" inputMode="decimal" value={temperature} onChange={(e) => setTemperature(e.target.value)} />
      </Field>
      <Field label="Max output tokens" htmlFor={`${f}-max`}>
        <input id={`${f}-max`} className="field" inputMode="numeric" value={maxOutputTokens} onChange={(e) => setMaxOutputTokens(e.target.value)} />
      </Field>
      <Field label="Input price (USD / M tokens)" htmlFor={`${f}-pin`} hint="for cost estimates; optional">
        <input id={`${f}-pin`} className="field" inputMode="decimal" value={priceIn} onChange={(e) => setPriceIn(e.target.value)} />
      </Field>
      <Field label="Output price (USD / M tokens)" htmlFor={`${f}-pout`}>
        <input id={`${f}-pout`} className="field" inputMode="decimal" value={priceOut} onChange={(e) => setPriceOut(e.target.value)} />
      </Field>
      <div className="flex flex-wrap items-center gap-2 sm:col-span-2 lg:col-span-4">
        <button type="submit" className="btn btn-on" disabled={create.isPending} data-testid="create-config">
          {create.isPending ? "Creating…" : "Create configuration"}
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        {create.isError && (
          <p role="alert" className="text-[12px] text-rose-700" data-testid="config-error">
            {errorText(create.error)}
          </p>
        )}
      </div>
    </form>
  );
}
