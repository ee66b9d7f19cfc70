"use client";
/**
 * The "New run" form: which tasks, which policy, the limits and the safety rules. A preview below the task choice
 * says how many tasks the run will hold and which of them cannot run (no start URL, no demo script) before anything
 * is queued.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useDeferredValue, useMemo, useState, type ReactNode } from "react";
import { BLOCKED_TEXT_SUGGESTIONS, LIVE_RUN_DEFAULTS, parseActionLines } from "@/server/domain/live/settings";
import { parseTrajectoryListParams } from "@/server/domain/trajectory-list-query";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../_trpc/client";
import { Field } from "./bits";

type FormOptions = inferRouterOutputs<AppRouter>["liveRuns"]["formOptions"];
type StartInput = inferRouterInputs<AppRouter>["liveRuns"]["start"];

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

export function NewRunForm({ options, preset }: { options: FormOptions; preset: NewRunPreset }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [source, setSource] = useState<Source>(preset.source);
  const [taskSetId, setTaskSetId] = useState<number | null>(preset.source === "taskSet" ? preset.taskSetId : (options.taskSets[0]?.id ?? null));
  const [limit, setLimit] = useState("");
  const [filterText, setFilterText] = useState(preset.source === "trajectories" ? preset.filter : "");
  const [policyKind, setPolicyKind] = useState<"scripted" | "vlm">(preset.source === "demo" || options.policies.length === 0 ? "scripted" : "vlm");
  const [scriptSource, setScriptSource] = useState<"demo" | "actions">(preset.source === "demo" ? "demo" : "actions");
  const [actionsText, setActionsText] = useState("");
  const [judgeConfigId, setJudgeConfigId] = useState<number | null>(options.policies[0]?.id ?? null);
  const [history, setHistory] = useState(String(LIVE_RUN_DEFAULTS.historyScreenshots));
  const [maxSteps, setMaxSteps] = useState(String(LIVE_RUN_DEFAULTS.maxSteps));
  const [concurrency, setConcurrency] = useState(String(LIVE_RUN_DEFAULTS.concurrency));
  const [stepTimeout, setStepTimeout] = useState(String(LIVE_RUN_DEFAULTS.stepTimeoutMs / 1000));
  const [runTimeout, setRunTimeout] = useState(String(LIVE_RUN_DEFAULTS.runTimeoutMs / 60_000));
  const [viewport, setViewport] = useState(`${LIVE_RUN_DEFAULTS.viewport.width}x${LIVE_RUN_DEFAULTS.viewport.height}`);
  const [hosts, setHosts] = useState("");
  const [blocked, setBlocked] = useState("");
  const [downloads, setDownloads] = useState(false);
  const [name, setName] = useState("");
  const [profileId, setProfileId] = useState<number | null>(null);
  const [infraRetries, setInfraRetries] = useState(String(LIVE_RUN_DEFAULTS.infraRetries));
  const [hostConcurrency, setHostConcurrency] = useState("");
  const [recordHar, setRecordHar] = useState(true);
  const [detectBlocking, setDetectBlocking] = useState(true);

  const tasks: StartInput["tasks"] = useMemo(() => {
    if (source === "demo") return { from: "demo" };
    if (source === "taskSet") {
      const l = Number(limit);
      return { from: "taskSet", taskSetId: taskSetId ?? 0, ...(limit && Number.isInteger(l) && l > 0 ? { limit: l } : {}) };
    }
    return { from: "trajectories", filter: filterFromText(filterText) };
  }, [source, taskSetId, limit, filterText]);

  const policy: StartInput["policy"] = useMemo(
    () =>
      policyKind === "vlm"
        ? { kind: "vlm", judgeConfigId: judgeConfigId ?? 0 }
        : { kind: "scripted", source: scriptSource, actions: scriptSource === "actions" ? parseActionLines(actionsText) : [] },
    [policyKind, judgeConfigId, scriptSource, actionsText],
  );

  const previewInput = useDeferredValue({ tasks, policy, deploymentProfileId: profileId });
  const previewEnabled =
    !(previewInput.tasks.from === "taskSet" && !previewInput.tasks.taskSetId) && !(previewInput.policy.kind === "vlm" && !previewInput.policy.judgeConfigId);
  const preview = useQuery({ ...trpc.liveRuns.preview.queryOptions(previewInput), enabled: previewEnabled, staleTime: 5_000, retry: false });

  const start = useMutation(
    trpc.liveRuns.start.mutationOptions({
      onSuccess: ({ runId }) => router.push(`/live/${runId}`),
    }),
  );

  const viewportMatch = /^\s*(\d{3,4})\s*[x×]\s*(\d{3,4})\s*$/.exec(viewport);
  const submit = () => {
    start.mutate({
      name: name.trim() || undefined,
      tasks,
      policy,
      settings: {
        maxSteps: numberOr(maxSteps, LIVE_RUN_DEFAULTS.maxSteps),
        concurrency: numberOr(concurrency, LIVE_RUN_DEFAULTS.concurrency),
        stepTimeoutMs: Math.round(numberOr(stepTimeout, LIVE_RUN_DEFAULTS.stepTimeoutMs / 1000) * 1000),
        runTimeoutMs: Math.round(numberOr(runTimeout, LIVE_RUN_DEFAULTS.runTimeoutMs / 60_000) * 60_000),
        viewport: viewportMatch ? { width: Number(viewportMatch[1]), height: Number(viewportMatch[2]) } : { ...LIVE_RUN_DEFAULTS.viewport },
        allowedHosts: hosts.split(/[\s,]+/).filter(Boolean),
        blockedTexts: blocked
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean),
        allowDownloads: downloads,
        historyScreenshots: numberOr(history, LIVE_RUN_DEFAULTS.historyScreenshots),
        deploymentProfileId: profileId,
        infraRetries: numberOr(infraRetries, LIVE_RUN_DEFAULTS.infraRetries),
        hostConcurrency: hostConcurrency.trim() ? numberOr(hostConcurrency, 1) : null,
        recordHar,
        detectBlocking,
      },
    });
  };

  const p = preview.data;
  const blockers = p ? p.withoutStartUrl.length + p.withoutScript.length + p.placeholderProblems.length : 0;
  const selectedConfig = options.policies.find((c) => c.id === judgeConfigId);

  return (
    <form
      className="mx-auto flex w-full max-w-4xl flex-col gap-4 px-6 py-5"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      aria-label="New live run"
    >
      <Section title="1 · Tasks">
        <div className="flex flex-wrap gap-2" role="radiogroup" aria-label="Task source">
          <Choice on={source === "demo"} onClick={() => setSource("demo")} testId="source-demo">
            Demo tasks
          </Choice>
          <Choice on={source === "taskSet"} onClick={() => setSource("taskSet")} testId="source-set">
            A task set
          </Choice>
          <Choice on={source === "trajectories"} onClick={() => setSource("trajectories")} testId="source-trajectories">
            Tasks of filtered trajectories
          </Choice>
        </div>
        {source === "demo" && (
          <p className="text-[12px] text-zinc-600">
            The {options.demo.taskSetName} tasks on the bundled demo sites ({options.demo.baseUrl}), served by the worker.
          </p>
        )}
        {source === "taskSet" && (
          <div className="grid gap-3 sm:grid-cols-[1fr_10rem]">
            <Field label="Task set" htmlFor="task-set">
              <select id="task-set" className="field" value={taskSetId ?? ""} onChange={(e) => setTaskSetId(Number(e.target.value) || null)}>
                {options.taskSets.length === 0 && <option value="">No task sets yet</option>}
                {options.taskSets.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name} ({s.taskCount} tasks)
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Only the first" htmlFor="limit" hint="empty = all">
              <input id="limit" className="field" inputMode="numeric" value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="all" />
            </Field>
          </div>
        )}
        {source === "trajectories" && (
          <Field
            label="Trajectory list filter"
            htmlFor="filter"
            hint="Paste the address of a filtered trajectory list (or its ?query): the run takes the tasks of the trajectories it shows."
          >
            <input
              id="filter"
              className="field font-mono"
              value={filterText}
              onChange={(e) => setFilterText(e.target.value)}
              placeholder="/trajectories?run=2&outcome=error"
            />
          </Field>
        )}
        <div className="rounded-md bg-zinc-50 px-3 py-2 text-[12px]" data-testid="preview" aria-live="polite">
          {preview.isError ? (
            <span className="text-rose-700">{preview.error.message}</span>
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
            <span className="text-zinc-500">{previewEnabled ? "Counting tasks…" : "Choose the tasks."}</span>
          )}
        </div>
      </Section>

      <Section title="2 · Policy">
        <div className="flex flex-wrap gap-2" role="radiogroup" aria-label="Policy">
          <Choice on={policyKind === "scripted"} onClick={() => setPolicyKind("scripted")} testId="policy-scripted">
            Scripted (replays actions, no model)
          </Choice>
          <Choice on={policyKind === "vlm"} onClick={() => setPolicyKind("vlm")} testId="policy-vlm">
            VLM through an endpoint
          </Choice>
        </div>
        {policyKind === "scripted" ? (
          <div className="flex flex-col gap-2">
            <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[12px] text-amber-900">
              A scripted policy replays a fixed list of actions; nothing is decided by a model. Its runs are labelled “scripted” everywhere.
            </p>
            <div className="flex flex-wrap gap-4 text-[12px]">
              <label className="flex items-center gap-1.5">
                <input type="radio" name="script-source" checked={scriptSource === "demo"} onChange={() => setScriptSource("demo")} />
                The bundled demo scripts (demo tasks only)
              </label>
              <label className="flex items-center gap-1.5">
                <input type="radio" name="script-source" checked={scriptSource === "actions"} onChange={() => setScriptSource("actions")} />
                This action list, on every task
              </label>
            </div>
            {scriptSource === "actions" && (
              <Field
                label="Actions, one per line"
                htmlFor="actions"
                hint={
                  <>
                    VisualWebArena or WebVoyager style: <code>click [3]</code>, <code>type [5] [red lentil soup]</code>, <code>Scroll [WINDOW]; down</code>,{" "}
                    <code>stop [45 minutes]</code>. <code>{"{{Add to cart}}"}</code> in place of a number picks the element with that text.
                  </>
                }
              >
                <textarea
                  id="actions"
                  className="field h-32 py-1.5 font-mono"
                  value={actionsText}
                  onChange={(e) => setActionsText(e.target.value)}
                  placeholder={"type [{{input:Search}}] [red lentil soup]\nclick [{{Red Lentil Soup with Cumin}}]\nscroll [down]\nstop [45 minutes]"}
                />
              </Field>
            )}
          </div>
        ) : options.policies.length === 0 ? (
          <p className="text-[12px] text-zinc-600">
            No endpoint is configured yet. A VLM policy uses a judge configuration's endpoint settings (base URL, model, key kept on the server): create one
            with <code className="font-mono">npm run cli -- judge-config create …</code>.
          </p>
        ) : (
          <div className="grid gap-3 sm:grid-cols-[1fr_10rem]">
            <Field
              label="Endpoint configuration"
              htmlFor="judge-config"
              hint={
                selectedConfig
                  ? `${selectedConfig.model} at ${selectedConfig.baseUrl ?? "the OpenAI API"} · key ${selectedConfig.apiKeySource} · prompt ${options.promptVersion}`
                  : undefined
              }
            >
              <select id="judge-config" className="field" value={judgeConfigId ?? ""} onChange={(e) => setJudgeConfigId(Number(e.target.value) || null)}>
                {options.policies.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name} ({c.model})
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Screenshots kept" htmlFor="history" hint="per call, current included">
              <input id="history" className="field" inputMode="numeric" value={history} onChange={(e) => setHistory(e.target.value)} />
            </Field>
          </div>
        )}
      </Section>

      <Section title="3 · Benchmark deployment">
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
            <select id="deployment-profile" className="field" value={profileId ?? ""} onChange={(e) => setProfileId(Number(e.target.value) || null)}>
              <option value="">None (open web or demo sites)</option>
              {options.deploymentProfiles.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} ({d.placeholders.join(", ")})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Infra retries" htmlFor="infra-retries" hint="reset, login, crash before step 1">
            <input id="infra-retries" className="field" inputMode="numeric" value={infraRetries} onChange={(e) => setInfraRetries(e.target.value)} />
          </Field>
          <Field label="Tasks per host" htmlFor="host-concurrency" hint="empty = no limit">
            <input
              id="host-concurrency"
              className="field"
              inputMode="numeric"
              value={hostConcurrency}
              onChange={(e) => setHostConcurrency(e.target.value)}
              placeholder="no limit"
            />
          </Field>
        </div>
        <div className="flex flex-wrap gap-5 text-[12px]">
          <label className="flex items-center gap-1.5">
            <input type="checkbox" checked={recordHar} onChange={(e) => setRecordHar(e.target.checked)} />
            Keep a network log (HAR) per trajectory
          </label>
          <label className="flex items-center gap-1.5">
            <input type="checkbox" checked={detectBlocking} onChange={(e) => setDetectBlocking(e.target.checked)} />
            End a trajectory as “blocked” on a CAPTCHA, bot check or consent wall
          </label>
        </div>
      </Section>

      <Section title="4 · Limits">
        <div className="grid grid-cols-2 gap-3 sm:grid-cols-5">
          <Field label="Step limit" htmlFor="max-steps" hint="a task's own max_steps wins">
            <input id="max-steps" className="field" inputMode="numeric" value={maxSteps} onChange={(e) => setMaxSteps(e.target.value)} />
          </Field>
          <Field label="Concurrency" htmlFor="concurrency" hint="tasks at once">
            <input id="concurrency" className="field" inputMode="numeric" value={concurrency} onChange={(e) => setConcurrency(e.target.value)} />
          </Field>
          <Field label="Step timeout (s)" htmlFor="step-timeout">
            <input id="step-timeout" className="field" inputMode="decimal" value={stepTimeout} onChange={(e) => setStepTimeout(e.target.value)} />
          </Field>
          <Field label="Run timeout (min)" htmlFor="run-timeout" hint="a task's own time_limit_seconds wins">
            <input id="run-timeout" className="field" inputMode="decimal" value={runTimeout} onChange={(e) => setRunTimeout(e.target.value)} />
          </Field>
          <Field label="Viewport" htmlFor="viewport" hint={viewportMatch ? undefined : "width×height, e.g. 1280x800"}>
            <input
              id="viewport"
              className={`field font-mono ${viewportMatch ? "" : "border-rose-400"}`}
              value={viewport}
              onChange={(e) => setViewport(e.target.value)}
            />
          </Field>
        </div>
      </Section>

      <Section title="5 · Safety">
        <div className="grid gap-3 sm:grid-cols-2">
          <Field
            label="Allowed hosts"
            htmlFor="hosts"
            hint="Empty: each task's start URL host (with its subdomains). Navigation elsewhere is blocked and recorded as a step error."
          >
            <textarea id="hosts" className="field h-20 py-1.5 font-mono" value={hosts} onChange={(e) => setHosts(e.target.value)} placeholder="example.com" />
          </Field>
          <Field
            label="Blocked element texts"
            htmlFor="blocked"
            hint={
              <button type="button" className="link" onClick={() => setBlocked(BLOCKED_TEXT_SUGGESTIONS.join("\n"))}>
                Use the usual list ({BLOCKED_TEXT_SUGGESTIONS.slice(0, 3).join(", ")}, …)
              </button>
            }
          >
            <textarea
              id="blocked"
              className="field h-20 py-1.5"
              value={blocked}
              onChange={(e) => setBlocked(e.target.value)}
              placeholder={"Place order\nDelete\nSign in"}
            />
          </Field>
        </div>
        <p className="text-[12px] text-zinc-600" data-testid="private-network-note">
          Private and loopback addresses: only the demo sites, the destinations an admin allowed and the sites of the chosen deployment profile. Cloud metadata
          services never.
        </p>
        <div className="flex flex-wrap gap-5 text-[12px]">
          <label className="flex items-center gap-1.5">
            <input type="checkbox" checked={downloads} onChange={(e) => setDownloads(e.target.checked)} />
            Allow downloads
          </label>
        </div>
      </Section>

      <div className="flex flex-wrap items-end justify-between gap-3">
        <Field label="Name (optional)" htmlFor="run-name">
          <input id="run-name" className="field w-80" value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. demo smoke test" />
        </Field>
        <div className="flex items-center gap-3">
          {start.isError && (
            <span role="alert" className="max-w-md text-[12px] text-rose-700">
              {start.error.message}
            </span>
          )}
          <button
            type="submit"
            className="btn btn-on h-8 px-4"
            disabled={start.isPending || !p || p.count === 0 || blockers > 0 || !viewportMatch}
            data-testid="start-run"
          >
            {start.isPending ? "Starting…" : p ? `Start run on ${p.count} task${p.count === 1 ? "" : "s"}` : "Start run"}
          </button>
        </div>
      </div>
    </form>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3">
      <h2 className="section-title">{title}</h2>
      {children}
    </section>
  );
}

function Choice({ on, onClick, children, testId }: { on: boolean; onClick: () => void; children: ReactNode; testId: string }) {
  return (
    <button type="button" role="radio" aria-checked={on} className={`btn ${on ? "btn-on" : ""}`} onClick={onClick} data-testid={testId}>
      {children}
    </button>
  );
}
