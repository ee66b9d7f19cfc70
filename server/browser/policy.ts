/**
 * The policy interface: whatever decides the next action from an observation. The recorder calls it once per step;
 * a scripted policy replays a list, a VLM policy (live-runner issue) asks a model.
 */
import type { ParsedAction, SomElement } from "../domain/types";

export interface PolicyTask {
  externalId: string;
  intent: string;
  startUrl: string | null;
  /** Images given with the task (VisualWebArena's `image`), as data URLs with where each came from. */
  inputImages?: { dataUrl: string; source: string }[];
}

export interface PolicyHistoryEntry {
  index: number;
  url: string | null;
  thought: string | null;
  actionRaw: string | null;
  action: ParsedAction;
  error: string | null;
}

export interface PolicyObservation {
  task: PolicyTask;
  /** 0-based index of the step being decided. */
  stepIndex: number;
  maxSteps: number;
  url: string;
  title: string;
  elements: SomElement[];
  /** `[N]: <tag> "text";` entries joined by tabs (formatElementList). */
  elementList: string;
  /** PNG bytes with the marks drawn. */
  markedScreenshot: Buffer;
  rawScreenshot: Buffer;
  /** Earlier steps, oldest first. */
  history: PolicyHistoryEntry[];
  /** The error of the previous step's action, fed back as WebVoyager does; null when it succeeded. */
  lastError: string | null;
  tabs: { index: number; url: string; active: boolean }[];
  signal?: AbortSignal;
}

export interface PolicyDecision {
  thought?: string | null;
  /** The action text as the policy wrote it; stored verbatim on the step. */
  actionRaw: string;
  /** Already-parsed action; when absent the recorder parses actionRaw with its grammar. */
  action?: ParsedAction;
  /** The exact request the policy sent: its prompt version and messages, images replaced by their sha256. */
  prompt?: { version: string; messages: unknown[] };
}

export interface Policy {
  /** Shown in the UI and stored in the run config: "scripted", "vlm:gpt-4o", … */
  name: string;
  nextAction(observation: PolicyObservation): Promise<PolicyDecision>;
}
