/**
 * Recording one trajectory: drive a policy over a live page and keep every step in the native bundle's shape.
 *
 * Per step: settle → Set-of-Marks observation (boxes, raw and marked screenshots) → policy → execute → record.
 * The run ends when the policy answers, at the step limit, or with a reason (a browser failure, a policy failure,
 * a timeout, cancellation). Action errors do not end it: they are recorded on the step and shown to the policy on
 * the next turn, as WebVoyager does. Each finished step is handed to `onStep` as it happens, so a caller can
 * persist or stream it before the run is over.
 */
import type { z } from "zod";
import { bundleRunSchema, bundleTaskSchema, type BundleImage, type BundleStep, type BundleTrajectory } from "../domain/imports/bundle";
import { parseWebVoyagerAction } from "../domain/actions/webvoyager";
import { stepContent, type Outcome, type ParsedAction, type SomElement } from "../domain/types";
import { executeAction, type ActionOptions, type ActionResult } from "./actions";
import type { Page } from "playwright";
import type { Policy, PolicyDecision, PolicyHistoryEntry, PolicyTask } from "./policy";
import type { BrowserSession } from "./session";
import { settlePage, type SettleOptions } from "./settle";
import { formatElementList, observePage, type PngImage, type SomOptions } from "./som";

export type RecorderTaskInput = z.input<typeof bundleTaskSchema>;
export type RecorderRunInput = z.input<typeof bundleRunSchema>;

export interface StepTimings {
  settleMs: number;
  observeMs: number;
  policyMs: number;
  actionMs: number;
  /** Time spent in onStep (persisting the step). */
  recordMs: number;
  /** Whether the page settled before the cap. */
  settled: boolean;
}

export interface RecordedStep {
  index: number;
  /** Wall-clock start of the step (epoch ms): places the HAR's requests on steps. */
  startedAt: number;
  /** The tabs open when the step was observed, the active one marked. */
  tabs: { index: number; url: string; active: boolean }[];
  /** The exact prompt the policy sent for this step, when it sent one (VLM policy). */
  prompt: PolicyDecision["prompt"] | null;
  screenshot: PngImage;
  rawScreenshot: PngImage;
  url: string;
  thought: string | null;
  actionRaw: string;
  action: ParsedAction;
  elements: SomElement[];
  error: string | null;
  /** Wall time of the whole step, policy included. */
  durationMs: number;
  timings: StepTimings;
}

export interface RecordedTrajectory {
  task: BundleTrajectory["task"];
  run: BundleTrajectory["run"];
  attempt: number;
  finalAnswer: string | null;
  outcome: Outcome;
  outcomeDetail: string | null;
  steps: RecordedStep[];
}

export interface RecordOptions {
  session: BrowserSession;
  task: RecorderTaskInput;
  /** Where the run starts when not the task's own start URL (a deployment's URL for a placeholder). */
  startUrl?: string | null;
  run: RecorderRunInput;
  policy: Policy;
  attempt?: number;
  /** Steps before the run ends with `step_limit` (WebVoyager's default is 15). */
  maxSteps?: number;
  /** One step (settle, observation, policy, action, recording) may take at most this long. */
  stepTimeoutMs?: number;
  /** The whole run may take at most this long; then it ends with `time_limit`. */
  runTimeoutMs?: number;
  signal?: AbortSignal;
  /** Grammar for policies that return only action text; WebVoyager's by default. */
  parseAction?: (text: string) => ParsedAction;
  settle?: SettleOptions;
  som?: SomOptions;
  actions?: ActionOptions;
  onStep?: (step: RecordedStep) => void | Promise<void>;
  guard?: ActionGuard;
  /** The task's input images, given to the policy with the task (VisualWebArena's `image`). */
  inputImages?: PolicyTask["inputImages"];
  /**
   * Looks at each observed page for a CAPTCHA, bot check or consent wall; a reason ends the run as `blocked` at that
   * step (recorded with the reason as its error, the policy not asked).
   */
  blockedCheck?: (page: Page, stepIndex: number) => Promise<string | null>;
}

/**
 * Safety checks around each action (the live runner's allowlist and element blocklist). `before` may refuse an
 * action: it is not executed and the refusal becomes the step's error, which the policy sees next turn. `after`
 * may report a problem the action caused (a blocked navigation), added to the step's error.
 */
export interface ActionGuard {
  before?(action: ParsedAction, observation: { url: string; elements: SomElement[] }): string | null | Promise<string | null>;
  after?(action: ParsedAction, result: ActionResult): string | null | Promise<string | null>;
}

export const DEFAULT_MAX_STEPS = 15;

/** Ends a run early with a reason (timeout, cancellation); never seen by callers. */
class RunStop extends Error {
  constructor(
    readonly outcome: Outcome,
    message: string,
  ) {
    super(message);
  }
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split("\n")[0]!;
}

/** "90 s", "2 min", "1.5 h": a time limit as the player shows it. */
function formatLimit(ms: number): string {
  const s = ms / 1000;
  if (s < 120) return `${Number(s.toFixed(1))} s`;
  if (s < 7200) return `${Number((s / 60).toFixed(1))} min`;
  return `${Number((s / 3600).toFixed(1))} h`;
}

/**
 * Races `work` against the step deadline and cancellation. The deadline ends the run as `error` with the reason
 * (a step that hung), or as `time_limit` when it was the run's own time running out.
 */
function guarded<T>(work: Promise<T>, ms: number, what: string | { outcome: Outcome; message: string }, signal?: AbortSignal): Promise<T> {
  const expired = typeof what === "string" ? { outcome: "error" as Outcome, message: what } : what;
  if (!Number.isFinite(ms) && !signal) return work;
  // An abort that happened before this call fires no event: stop here instead of starting work on a dead run.
  if (signal?.aborted) {
    work.catch(() => {});
    return Promise.reject(new RunStop("cancelled", "cancelled"));
  }
  return new Promise<T>((resolve, reject) => {
    const timer = Number.isFinite(ms) ? setTimeout(() => reject(new RunStop(expired.outcome, expired.message)), Math.max(0, ms)) : null;
    const onAbort = () => reject(new RunStop("cancelled", "cancelled"));
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    work.then(
      (v) => {
        done();
        resolve(v);
      },
      (e) => {
        done();
        reject(e);
      },
    );
  });
}

export async function recordTrajectory(options: RecordOptions): Promise<RecordedTrajectory> {
  const task = bundleTaskSchema.parse(options.task);
  const run = bundleRunSchema.parse(options.run);
  const { session, signal } = options;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const startUrl = options.startUrl !== undefined ? options.startUrl : task.startUrl;
  const parse = options.parseAction ?? parseWebVoyagerAction;
  const stepTimeout = options.stepTimeoutMs ?? Infinity;
  const runDeadline = performance.now() + (options.runTimeoutMs ?? Infinity);
  const timeLimitReached = (index: number) => `reached the time limit (${formatLimit(options.runTimeoutMs!)}) at step ${index} without an answer`;

  const steps: RecordedStep[] = [];
  const stepRun: StepRun = { options, task, startUrl, maxSteps, parse, steps };
  let outcome: Outcome = "unknown";
  let outcomeDetail: string | null = null;
  let finalAnswer: string | null = null;

  try {
    if (signal?.aborted) throw new RunStop("cancelled", "cancelled before the first step");
    if (startUrl) {
      const left = runDeadline - performance.now();
      await guarded(
        session.page.goto(startUrl, { waitUntil: "commit", timeout: Math.min(30_000, stepTimeout) }),
        Math.min(stepTimeout, left),
        left < stepTimeout ? { outcome: "time_limit", message: timeLimitReached(0) } : `opening ${startUrl} took longer than the step timeout`,
        signal,
      );
    }
    let lastError: string | null = null;
    for (let index = 0; ; index++) {
      if (signal?.aborted) throw new RunStop("cancelled", "cancelled");
      if (index >= maxSteps) {
        outcome = "step_limit";
        outcomeDetail = `reached the step limit (${maxSteps}) without an answer`;
        break;
      }
      const left = runDeadline - performance.now();
      if (left <= 0) throw new RunStop("time_limit", timeLimitReached(index));
      const budget = Math.min(stepTimeout, left);
      const step: StepResult = await guarded(
        runStep(stepRun, index, lastError),
        budget,
        budget < stepTimeout
          ? { outcome: "time_limit", message: timeLimitReached(index) }
          : { outcome: "error", message: `step ${index} took longer than ${stepTimeout} ms` },
        signal,
      );
      const r0 = performance.now();
      await options.onStep?.(step.recorded);
      step.recorded.timings.recordMs = performance.now() - r0;
      steps.push(step.recorded);
      lastError = step.recorded.error;
      if (step.blocked) {
        outcome = "blocked";
        outcomeDetail = step.blocked;
        break;
      }
      if (step.ended) {
        outcome = "answered";
        finalAnswer = step.recorded.action.value ?? null;
        if (step.recorded.action.type === "report_infeasible") outcomeDetail = "the agent reported the task infeasible";
        break;
      }
    }
  } catch (e) {
    if (e instanceof RunStop) {
      outcome = e.outcome;
      outcomeDetail = e.message;
    } else {
      outcome = "error";
      outcomeDetail = firstLine(e);
    }
  }
  return { task, run, attempt: options.attempt ?? 0, finalAnswer, outcome, outcomeDetail, steps };
}

/** What each step of a recording reads: the options, the task, and the steps recorded so far. */
interface StepRun {
  options: RecordOptions;
  task: RecordedTrajectory["task"];
  startUrl: string | null;
  maxSteps: number;
  parse: (raw: string) => ParsedAction;
  steps: RecordedStep[];
}

type StepResult = { recorded: RecordedStep; ended: boolean; blocked?: string };

/** One step: settle, observe, ask the policy, act; a refused page ends the run as blocked with its evidence. */
async function runStep(run: StepRun, index: number, lastError: string | null): Promise<StepResult> {
  const { options, task, startUrl, maxSteps, parse, steps } = run;
  const { session, policy, signal } = options;
  const t0 = performance.now();
  const startedAt = Date.now();
  const page = session.page;
  let settled = await settlePage(page, options.settle);
  const t1 = performance.now();
  let obs;
  try {
    obs = await observePage(page, options.som);
  } catch (e) {
    // A navigation that started after the page looked settled replaces the document mid-observation: settle on
    // the new document and look again, once.
    if (page.isClosed() || !/Execution context was destroyed|navigat|Cannot find context/i.test(String(e))) throw e;
    settled = await settlePage(page, options.settle);
    obs = await observePage(page, options.som);
  }
  const t2 = performance.now();
  const tabs = session.tabs().map((p, i) => ({ index: i, url: p.url(), active: p === page }));
  const blocked = options.blockedCheck ? await options.blockedCheck(page, index) : null;
  if (blocked) {
    // The page refuses the agent: nothing to decide; the step keeps the screenshot as the evidence.
    return {
      ended: true,
      blocked,
      recorded: {
        index,
        startedAt,
        tabs,
        prompt: null,
        screenshot: obs.marked,
        rawScreenshot: obs.raw,
        url: obs.url,
        thought: null,
        actionRaw: "",
        action: { type: "noop" },
        elements: obs.elements,
        error: blocked,
        durationMs: Math.round(performance.now() - t0),
        timings: { settleMs: t1 - t0, observeMs: t2 - t1, policyMs: 0, actionMs: 0, recordMs: 0, settled: settled.settled },
      },
    };
  }
  const history: PolicyHistoryEntry[] = steps.map((s) => ({
    index: s.index,
    url: s.url,
    thought: s.thought,
    actionRaw: s.actionRaw,
    action: s.action,
    error: s.error,
  }));
  let decision;
  try {
    decision = await policy.nextAction({
      task: { externalId: task.externalId, intent: task.intent, startUrl, inputImages: options.inputImages ?? [] },
      stepIndex: index,
      maxSteps,
      url: obs.url,
      title: obs.title,
      elements: obs.elements,
      elementList: formatElementList(obs.elements),
      markedScreenshot: obs.marked.bytes,
      rawScreenshot: obs.raw.bytes,
      history,
      lastError,
      tabs,
      signal,
    });
  } catch (e) {
    throw new RunStop("error", `policy ${policy.name} failed at step ${index}: ${firstLine(e)}`);
  }
  const t3 = performance.now();
  const action = decision.action ?? parse(decision.actionRaw);
  const refused = (await options.guard?.before?.(action, { url: obs.url, elements: obs.elements })) ?? null;
  let result: ActionResult = refused
    ? { error: refused, ended: false }
    : await executeAction({ session, elements: obs.elements, scale: obs.scale }, action, options.actions);
  if (!refused && options.guard?.after) {
    const late = await options.guard.after(action, result);
    if (late) result = { error: result.error ? `${result.error}; ${late}` : late, ended: result.ended };
  }
  const t4 = performance.now();
  return {
    ended: result.ended,
    recorded: {
      index,
      startedAt,
      tabs,
      prompt: decision.prompt ?? null,
      screenshot: obs.marked,
      rawScreenshot: obs.raw,
      url: obs.url,
      thought: decision.thought ?? null,
      actionRaw: decision.actionRaw,
      action,
      elements: obs.elements,
      error: result.error,
      durationMs: Math.round(t4 - t0),
      timings: {
        settleMs: t1 - t0,
        observeMs: t2 - t1,
        policyMs: t3 - t2,
        actionMs: t4 - t3,
        recordMs: 0,
        settled: settled.settled,
      },
    },
  };
}

/** Anything that stores images and hands back their bundle entries (BundleWriter does). */
export interface BundleImageSink {
  addImage(bytes: Uint8Array): Promise<BundleImage>;
}

/** One recorded step in the native bundle's shape, its images stored through `images`. */
export async function toBundleStep(step: RecordedStep, images: BundleImageSink): Promise<BundleStep> {
  const [screenshot, rawScreenshot] = await Promise.all([images.addImage(step.screenshot.bytes), images.addImage(step.rawScreenshot.bytes)]);
  return {
    index: step.index,
    screenshot,
    rawScreenshot,
    marksBurnedIn: true,
    ...stepContent(step),
    durationMs: step.durationMs,
  };
}

/**
 * Records straight into a bundle: pass `sink.onStep` as RecordOptions.onStep, then `sink.trajectory(recorded)` gives
 * the bundle entry without converting the steps a second time.
 */
export function bundleStepSink(images: BundleImageSink) {
  const steps: BundleStep[] = [];
  return {
    steps,
    async onStep(step: RecordedStep): Promise<void> {
      steps.push(await toBundleStep(step, images));
    },
    trajectory(recorded: RecordedTrajectory): BundleTrajectory {
      if (steps.length !== recorded.steps.length) {
        throw new Error(`bundleStepSink saw ${steps.length} steps but the trajectory has ${recorded.steps.length}`);
      }
      const { steps: _recordedSteps, ...head } = recorded;
      return { ...head, steps: [...steps], verdicts: [] };
    },
  };
}

/** Converts a finished recording in one go (when no sink was attached while recording). */
export async function toBundleTrajectory(recorded: RecordedTrajectory, images: BundleImageSink): Promise<BundleTrajectory> {
  const steps: BundleStep[] = [];
  for (const s of recorded.steps) steps.push(await toBundleStep(s, images));
  const { steps: _recordedSteps, ...head } = recorded;
  return { ...head, steps, verdicts: [] };
}
