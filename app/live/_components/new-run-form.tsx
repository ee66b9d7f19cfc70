"use client";
/**
 * The "New run" form: which tasks, which policy, the limits and the safety rules. A preview below the task choice
 * says how many tasks the run will hold and which of them cannot run (no start URL, no demo script) before anything
 * is queued.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useCallback, useDeferredValue, useMemo, useState, type ReactNode } from "react";
import { BLOCKED_TEXT_SUGGESTIONS, LIVE_RUN_DEFAULTS, parseActionLines } from "@/server/domain/live/settings";
import { parseTrajectoryListParams } from "@/server/domain/trajectory-list-query";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../_trpc/client";
import { Field } from "../../_components/field";
import { PanelSection } from "../../_components/ui";

type FormOptions = inferRouterOutputs<AppRouter>["liveRuns"]["formOptions"];
type StartInput = inferRouterInputs<AppRouter>["liveRuns"]["start"];
type Preview = inferRouterOutputs<AppRouter>["liveRuns"]["preview"];

export type NewRunPreset = { source: "demo" } | { source: "taskSet"; taskSetId: number } | { source: "trajectories"; filter: string };

type Source = NewRunPreset["source"];

function filterFromText(text: string) {
  const t = text.trim();
  const query = t.includes("?") ? t.slice(t.indexOf("?") + 1) : t;
  const { sort: _s, dir: _d, page: _p, pageSize: _ps, ...filter } = parseTrajectoryListParams(new URLSearchParams(query));
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined));
}

function numberOr(text: string, fallback: number): number {
  const n = Number(text);
  return text.trim() !== "" && Number.isFinite(n) ? n : fallback;
}

/** Everything the form holds, as typed (numbers stay text until the run starts, so a field can be cleared). */
interface RunFields {
  source: Source;
  taskSetId: number | null;
  limit: string;
  filterText: string;
  policyKind: "scripted" | "vlm";
  scriptSource: "demo" | "actions";
  actionsText: string;
  judgeConfigId: number | null;
  history: string;
  maxSteps: string;
  concurrency: string;
  stepTimeout: string;
  runTimeout: string;
  viewport: string;
  hosts: string;
  blocked: string;
  downloads: boolean;
  name: string;
  profileId: number | null;
  infraRetries: string;
  hostConcurrency: string;
  recordHar: boolean;
  detectBlocking: boolean;
}

type SetField = <K extends keyof RunFields>(key: K, value: RunFields[K]) => void;

/** What a section shows and changes. */
interface SectionProps {
  f: RunFields;
  set: SetField;
  options: FormOptions;
}

function initialFields(options: FormOptions, preset: NewRunPreset): RunFields {
  return {
    source: preset.source,
    taskSetId: preset.source === "taskSet" ? preset.taskSetId : (options.taskSets[0]?.id ?? null),
    limit: "",
    filterText: preset.source === "trajectories" ? preset.filter : "",
    policyKind: preset.source === "demo" || options.policies.length === 0 ? "scripted" : "vlm",
    scriptSource: preset.source === "demo" ? "demo" : "actions",
    actionsText: "",
    judgeConfigId: options.policies[0]?.id ?? null,
    history: String(LIVE_RUN_DEFAULTS.historyScreenshots),
    maxSteps: String(LIVE_RUN_DEFAULTS.maxSteps),
    concurrency: String(LIVE_RUN_DEFAULTS.concurrency),
    stepTimeout: String(LIVE_RUN_DEFAULTS.stepTimeoutMs / 1000),
    runTimeout: String(LIVE_RUN_DEFAULTS.runTimeoutMs / 60_000),
    viewport: `${LIVE_RUN_DEFAULTS.viewport.width}x${LIVE_RUN_DEFAULTS.viewport.height}`,
    hosts: "",
    blocked: "",
    downloads: false,
    name: "",
    profileId: null,
    infraRetries: String(LIVE_RUN_DEFAULTS.infraRetries),
    hostConcurrency: "",
    recordHar: true,
    detectBlocking: true,
  };
}

function tasksOf(f: Pick<RunFields, "source" | "taskSetId" | "limit" | "filterText">): StartInput["tasks"] {
  if (f.source === "demo") return { from: "demo" };
  if (f.source === "taskSet") {
    const l = Number(f.limit);
    return { from: "taskSet", taskSetId: f.taskSetId ?? 0, ...(f.limit && Number.isInteger(l) && l > 0 ? { limit: l } : {}) };
  }
  return { from: "trajectories", filter: filterFromText(f.filterText) };
}

function policyOf(f: Pick<RunFields, "policyKind" | "judgeConfigId" | "scriptSource" | "actionsText">): StartInput["policy"] {
  return f.policyKind === "vlm"
    ? { kind: "vlm", judgeConfigId: f.judgeConfigId ?? 0 }
    : { kind: "scripted", source: f.scriptSource, actions: f.scriptSource === "actions" ? parseActionLines(f.actionsText) : [] };
}

/** width×height as typed ("1280x800", "1280 × 800"), or null. */
function viewportOf(text: string): { width: number; height: number } | null {
  const m = /^\s*(\d{3,4})\s*[x×]\s*(\d{3,4})\s*$/.exec(text);
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}

/** The run's settings from the form; a field left empty or unreadable takes its default. */
function settingsOf(f: RunFields): StartInput["settings"] {
  return {
    maxSteps: numberOr(f.maxSteps, LIVE_RUN_DEFAULTS.maxSteps),
    concurrency: numberOr(f.concurrency, LIVE_RUN_DEFAULTS.concurrency),
    stepTimeoutMs: Math.round(numberOr(f.stepTimeout, LIVE_RUN_DEFAULTS.stepTimeoutMs / 1000) * 1000),
    runTimeoutMs: Math.round(numberOr(f.runTimeout, LIVE_RUN_DEFAULTS.runTimeoutMs / 60_000) * 60_000),
    viewport: viewportOf(f.viewport) ?? { ...LIVE_RUN_DEFAULTS.viewport },
    allowedHosts: f.hosts.split(/[\s,]+/).filter(Boolean),
    blockedTexts: f.blocked
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean),
    allowDownloads: f.downloads,
    historyScreenshots: numberOr(f.history, LIVE_RUN_DEFAULTS.historyScreenshots),
    deploymentProfileId: f.profileId,
    infraRetries: numberOr(f.infraRetries, LIVE_RUN_DEFAULTS.infraRetries),
    hostConcurrency: f.hostConcurrency.trim() ? numberOr(f.hostConcurrency, 1) : null,
    recordHar: f.recordHar,
    detectBlocking: f.detectBlocking,
  };
}

export function NewRunForm({ options, preset }: { options: FormOptions; preset: NewRunPreset }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [f, setFields] = useState(() => initialFields(options, preset));
  const set = useCallback<SetField>((key, value) => setFields((old) => ({ ...old, [key]: value })), []);
  const { source, taskSetId, limit, filterText, policyKind, judgeConfigId, scriptSource, actionsText, profileId } = f;
  const tasks = useMemo(() => tasksOf({ source, taskSetId, limit, filterText }), [source, taskSetId, limit, filterText]);
  const policy = useMemo(() => policyOf({ policyKind, judgeConfigId, scriptSource, actionsText }), [policyKind, judgeConfigId, scriptSource, actionsText]);

  const previewInput = useDeferredValue({ tasks, policy, deploymentProfileId: profileId });
  const previewEnabled =
    !(previewInput.tasks.from === "taskSet" && !previewInput.tasks.taskSetId) && !(previewInput.policy.kind === "vlm" && !previewInput.policy.judgeConfigId);
  const preview = useQuery({ ...trpc.liveRuns.preview.queryOptions(previewInput), enabled: previewEnabled, staleTime: 5_000, retry: false });
  const start = useMutation(trpc.liveRuns.start.mutationOptions({ onSuccess: ({ runId }) => router.push(`/live/${runId}`) }));

  const p = preview.data;
  const blockers = p ? p.withoutStartUrl.length + p.withoutScript.length + p.placeholderProblems.length : 0;
  const viewportOk = viewportOf(f.viewport) !== null;
  const sections = { f, set, options };

  return (
    <form
      className="mx-auto flex w-full max-w-4xl flex-col gap-4 px-6 py-5"
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate({ name: f.name.trim() || undefined, tasks, policy, settings: settingsOf(f) });
      }}
      aria-label="New live run"
    >
      <TasksSection {...sections}>
        <TaskPreview preview={preview.data} error={preview.error} enabled={previewEnabled} />
      </TasksSection>
      <PolicySection {...sections} />
      <DeploymentSection {...sections} />
      <LimitsSection {...sections} />
      <SafetySection {...sections} />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <TextField f={f} set={set} field="name" id="run-name" label="Name (optional)" className="field w-80" placeholder="e.g. demo smoke test" />
        <div className="flex items-center gap-3">
          {start.isError && (
            <span role="alert" className="max-w-md text-[12px] text-rose-700">
              {start.error.message}
            </span>
          )}
          <button
            type="submit"
            className="btn btn-on h-8 px-4"
            disabled={start.isPending || !p || p.count === 0 || blockers > 0 || !viewportOk}
            data-testid="start-run"
          >
            {start.isPending ? "Starting…" : p ? `Start run on ${p.count} task${p.count === 1 ? "" : "s"}` : "Start run"}
          </button>
        </div>
      </div>
    </form>
  );
}

/** Which tasks: the demo tasks, a task set (or its first N), or the tasks of a filtered trajectory list. */
function TasksSection({ f, set, options, children }: SectionProps & { children: ReactNode }) {
  return (
    <PanelSection title="1 · Tasks">
      <div className="flex flex-wrap gap-2" role="radiogroup" aria-label="Task source">
        <Choice on={f.source === "demo"} onClick={() => set("source", "demo")} testId="source-demo">
          Demo tasks
        </Choice>
        <Choice on={f.source === "taskSet"} onClick={() => set("source", "taskSet")} testId="source-set">
          A task set
        </Choice>
        <Choice on={f.source === "trajectories"} onClick={() => set("source", "trajectories")} testId="source-trajectories">
          Tasks of filtered trajectories
        </Choice>
      </div>
      {f.source === "demo" && (
        <p className="text-[12px] text-zinc-600">
          The {options.demo.taskSetName} tasks on the bundled demo sites ({options.demo.baseUrl}), served by the worker.
        </p>
      )}
      {f.source === "taskSet" && (
        <div className="grid gap-3 sm:grid-cols-[1fr_10rem]">
          <Field label="Task set" htmlFor="task-set">
            <select id="task-set" className="field" value={f.taskSetId ?? ""} onChange={(e) => set("taskSetId", Number(e.target.value) || null)}>
              {options.taskSets.length === 0 && <option value="">No task sets yet</option>}
              {options.taskSets.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.taskCount} tasks)
                </option>
              ))}
            </select>
          </Field>
          <TextField f={f} set={set} field="limit" id="limit" label="Only the first" hint="empty = all" inputMode="numeric" placeholder="all" />
        </div>
      )}
      {f.source === "trajectories" && (
        <TextField
          f={f}
          set={set}
          field="filterText"
          id="filter"
          label="Trajectory list filter"
          hint="Paste the address of a filtered trajectory list (or its ?query): the run takes the tasks of the trajectories it shows."
          className="field font-mono"
          placeholder="/trajectories?run=2&outcome=error"
        />
      )}
      {children}
    </PanelSection>
  );
}

/** How many tasks the run will hold, a sample of them, and those that cannot run (and why), before anything is queued. */
function TaskPreview({ preview: p, error, enabled }: { preview: Preview | undefined; error: { message: string } | null; enabled: boolean }) {
  return (
    <div className="rounded-md bg-zinc-50 px-3 py-2 text-[12px]" data-testid="preview" aria-live="polite">
      {error ? (
        <span className="text-rose-700">{error.message}</span>
      ) : p ? (
        <>
          <div>
            <strong className="tabular-nums">{p.count}</strong> task{p.count === 1 ? "" : "s"} · {p.label}
          </div>
          {p.sample.length > 0 && (
            <div className="mt-0.5 truncate font-mono text-2xs text-zinc-500">
              {p.sample.map((t) => t.externalId).join(" · ")}
              {p.count > p.sample.length ? " …" : ""}
            </div>
          )}
          {p.withoutStartUrl.length > 0 && (
            <div className="mt-1 text-rose-700">
              {p.withoutStartUrl.length} without a usable start URL: {p.withoutStartUrl.slice(0, 5).join(", ")}
            </div>
          )}
          {p.placeholderProblems.length > 0 && (
            <div className="mt-1 text-rose-700" data-testid="placeholder-problems">
              {p.placeholderProblems.length} name sites this run cannot reach: {p.placeholderProblems.slice(0, 3).join("; ")}
            </div>
          )}
          {p.withoutScript.length > 0 && (
            <div className="mt-1 text-rose-700">
              {p.withoutScript.length} without a demo script: {p.withoutScript.slice(0, 5).join(", ")}
            </div>
          )}
        </>
      ) : (
        <span className="text-zinc-500">{enabled ? "Counting tasks…" : "Choose the tasks."}</span>
      )}
    </div>
  );
}

/** Who acts: a scripted policy (the demo scripts or an action list) or a VLM through a judge configuration's endpoint. */
function PolicySection({ f, set, options }: SectionProps) {
  return (
    <PanelSection title="2 · Policy">
      <div className="flex flex-wrap gap-2" role="radiogroup" aria-label="Policy">
        <Choice on={f.policyKind === "scripted"} onClick={() => set("policyKind", "scripted")} testId="policy-scripted">
          Scripted (replays actions, no model)
        </Choice>
        <Choice on={f.policyKind === "vlm"} onClick={() => set("policyKind", "vlm")} testId="policy-vlm">
          VLM through an endpoint
        </Choice>
      </div>
      {f.policyKind === "scripted" ? (
        <ScriptedPolicy f={f} set={set} />
      ) : options.policies.length === 0 ? (
        <p className="text-[12px] text-zinc-600">
          No endpoint is configured yet. A VLM policy uses a judge configuration's endpoint settings (base URL, model, key kept on the server): create one with{" "}
          <code className="font-mono">npm run cli -- judge-config create …</code>.
        </p>
      ) : (
        <VlmPolicy f={f} set={set} options={options} />
      )}
    </PanelSection>
  );
}

function ScriptedPolicy({ f, set }: Omit<SectionProps, "options">) {
  return (
    <div className="flex flex-col gap-2">
      <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[12px] text-amber-900">
        A scripted policy replays a fixed list of actions; nothing is decided by a model. Its runs are labelled “scripted” everywhere.
      </p>
      <div className="flex flex-wrap gap-4 text-[12px]">
        <label className="flex items-center gap-1.5">
          <input type="radio" name="script-source" checked={f.scriptSource === "demo"} onChange={() => set("scriptSource", "demo")} />
          The bundled demo scripts (demo tasks only)
        </label>
        <label className="flex items-center gap-1.5">
          <input type="radio" name="script-source" checked={f.scriptSource === "actions"} onChange={() => set("scriptSource", "actions")} />
          This action list, on every task
        </label>
      </div>
      {f.scriptSource === "actions" && (
        <TextField
          f={f}
          set={set}
          field="actionsText"
          id="actions"
          label="Actions, one per line"
          hint={
            <>
              VisualWebArena or WebVoyager style: <code>click [3]</code>, <code>type [5] [red lentil soup]</code>, <code>Scroll [WINDOW]; down</code>,{" "}
              <code>stop [45 minutes]</code>. <code>{"{{Add to cart}}"}</code> in place of a number picks the element with that text.
            </>
          }
          className="field h-32 py-1.5 font-mono"
          placeholder={"type [{{input:Search}}] [red lentil soup]\nclick [{{Red Lentil Soup with Cumin}}]\nscroll [down]\nstop [45 minutes]"}
          lines
        />
      )}
    </div>
  );
}

function VlmPolicy({ f, set, options }: SectionProps) {
  const selected = options.policies.find((c) => c.id === f.judgeConfigId);
  return (
    <div className="grid gap-3 sm:grid-cols-[1fr_10rem]">
      <Field
        label="Endpoint configuration"
        htmlFor="judge-config"
        hint={
          selected ? `${selected.model} at ${selected.baseUrl ?? "the OpenAI API"} · key ${selected.apiKeySource} · prompt ${options.promptVersion}` : undefined
        }
      >
        <select id="judge-config" className="field" value={f.judgeConfigId ?? ""} onChange={(e) => set("judgeConfigId", Number(e.target.value) || null)}>
          {options.policies.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({c.model})
            </option>
          ))}
        </select>
      </Field>
      <TextField f={f} set={set} field="history" id="history" label="Screenshots kept" hint="per call, current included" inputMode="numeric" />
    </div>
  );
}

/** Where the tasks' sites are: a deployment profile, its retries and per-host limit, the network log, blocking detection. */
function DeploymentSection({ f, set, options }: SectionProps) {
  return (
    <PanelSection title="3 · Benchmark deployment">
      <div className="grid gap-3 sm:grid-cols-[1fr_9rem_9rem]">
        <Field
          label="Deployment profile"
          htmlFor="deployment-profile"
          hint={
            options.deploymentProfiles.length === 0
              ? "None yet: an admin creates one under Live runs → Deployments (or with the deployment-profile command). Needed for VisualWebArena / WebArena tasks, whose URLs name sites like __REDDIT__."
              : "Replaces the tasks' site placeholders, signs in and resets the sites before each task; the run may reach exactly the profile's hosts."
          }
        >
          <select id="deployment-profile" className="field" value={f.profileId ?? ""} onChange={(e) => set("profileId", Number(e.target.value) || null)}>
            <option value="">None (open web or demo sites)</option>
            {options.deploymentProfiles.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} ({d.placeholders.join(", ")})
              </option>
            ))}
          </select>
        </Field>
        <TextField f={f} set={set} field="infraRetries" id="infra-retries" label="Infra retries" hint="reset, login, crash before step 1" inputMode="numeric" />
        <TextField
          f={f}
          set={set}
          field="hostConcurrency"
          id="host-concurrency"
          label="Tasks per host"
          hint="empty = no limit"
          inputMode="numeric"
          placeholder="no limit"
        />
      </div>
      <div className="flex flex-wrap gap-5 text-[12px]">
        <CheckField f={f} set={set} field="recordHar">
          Keep a network log (HAR) per trajectory
        </CheckField>
        <CheckField f={f} set={set} field="detectBlocking">
          End a trajectory as “blocked” on a CAPTCHA, bot check or consent wall
        </CheckField>
      </div>
    </PanelSection>
  );
}

function LimitsSection({ f, set }: SectionProps) {
  const viewportOk = viewportOf(f.viewport) !== null;
  return (
    <PanelSection title="4 · Limits">
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-5">
        <TextField f={f} set={set} field="maxSteps" id="max-steps" label="Step limit" hint="a task's own max_steps wins" inputMode="numeric" />
        <TextField f={f} set={set} field="concurrency" id="concurrency" label="Concurrency" hint="tasks at once" inputMode="numeric" />
        <TextField f={f} set={set} field="stepTimeout" id="step-timeout" label="Step timeout (s)" inputMode="decimal" />
        <TextField
          f={f}
          set={set}
          field="runTimeout"
          id="run-timeout"
          label="Run timeout (min)"
          hint="a task's own time_limit_seconds wins"
          inputMode="decimal"
        />
        <TextField
          f={f}
          set={set}
          field="viewport"
          id="viewport"
          label="Viewport"
          hint={viewportOk ? undefined : "width×height, e.g. 1280x800"}
          className={`field font-mono ${viewportOk ? "" : "border-rose-400"}`}
        />
      </div>
    </PanelSection>
  );
}

/** Where the agent may go and what it may not click or do. */
function SafetySection({ f, set }: SectionProps) {
  return (
    <PanelSection title="5 · Safety">
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          f={f}
          set={set}
          field="hosts"
          id="hosts"
          label="Allowed hosts"
          hint="Empty: each task's start URL host (with its subdomains). Navigation elsewhere is blocked and recorded as a step error."
          className="field h-20 py-1.5 font-mono"
          placeholder="example.com"
          lines
        />
        <TextField
          f={f}
          set={set}
          field="blocked"
          id="blocked"
          label="Blocked element texts"
          hint={
            <button type="button" className="link" onClick={() => set("blocked", BLOCKED_TEXT_SUGGESTIONS.join("\n"))}>
              Use the usual list ({BLOCKED_TEXT_SUGGESTIONS.slice(0, 3).join(", ")}, …)
            </button>
          }
          className="field h-20 py-1.5"
          placeholder={"Place order\nDelete\nSign in"}
          lines
        />
      </div>
      <p className="text-[12px] text-zinc-600" data-testid="private-network-note">
        Private and loopback addresses: only the demo sites, the destinations an admin allowed and the sites of the chosen deployment profile. Cloud metadata
        services never.
      </p>
      <div className="flex flex-wrap gap-5 text-[12px]">
        <CheckField f={f} set={set} field="downloads">
          Allow downloads
        </CheckField>
      </div>
    </PanelSection>
  );
}

type TextKey = { [K in keyof RunFields]: string extends RunFields[K] ? K : never }[keyof RunFields];
type FlagKey = { [K in keyof RunFields]: RunFields[K] extends boolean ? K : never }[keyof RunFields];

/** A text value of the form: its label and hint over an input (a textarea with `lines`). */
function TextField({
  f,
  set,
  field,
  id,
  label,
  hint,
  className = "field",
  placeholder,
  inputMode,
  lines = false,
}: {
  f: RunFields;
  set: SetField;
  field: TextKey;
  id: string;
  label: string;
  hint?: ReactNode;
  className?: string;
  placeholder?: string;
  inputMode?: "numeric" | "decimal";
  lines?: boolean;
}) {
  return (
    <Field label={label} htmlFor={id} hint={hint}>
      {lines ? (
        <textarea id={id} className={className} value={f[field]} onChange={(e) => set(field, e.target.value)} placeholder={placeholder} />
      ) : (
        <input id={id} className={className} inputMode={inputMode} value={f[field]} onChange={(e) => set(field, e.target.value)} placeholder={placeholder} />
      )}
    </Field>
  );
}

/** A yes/no value of the form: a checkbox and what it says. */
function CheckField({ f, set, field, children }: { f: RunFields; set: SetField; field: FlagKey; children: ReactNode }) {
  return (
    <label className="flex items-center gap-1.5">
      <input type="checkbox" checked={f[field]} onChange={(e) => set(field, e.target.checked)} />
      {children}
    </label>
  );
}

function Choice({ on, onClick, children, testId }: { on: boolean; onClick: () => void; children: ReactNode; testId: string }) {
  return (
    <button type="button" role="radio" aria-checked={on} className={`btn ${on ? "btn-on" : ""}`} onClick={onClick} data-testid={testId}>
      {children}
    </button>
  );
}
