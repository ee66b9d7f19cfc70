/**
 * Runs scanners' regular expressions under a time budget. JavaScript's regular expressions cannot be interrupted
 * from the outside except by V8's script timeout, so matching happens inside a `vm` context run with `timeout`: a
 * pattern that backtracks catastrophically is stopped there instead of stalling the worker. One call matches every
 * rule of one scanner over every step of one trajectory, so the budget's cost (a watchdog per call) is paid once per
 * trajectory, not per step.
 */
import vm from "node:vm";
import { checkPattern, PatternRefused, probeTexts } from "../../domain/evaluation/scanners/regex-guard";
import type { ScannerField } from "../../domain/evaluation/scanners/definitions";

/** Budget for one scanner over one trajectory. */
export const SCAN_BUDGET_MS = 2_000;
/**
 * Budget for all of a scanner's patterns on all their probe texts when it is saved, together: the probe runs in the
 * web request, so one save may hold the server up this long at most, whatever the number of rules and texts.
 */
export const PROBE_BUDGET_MS = 1_000;

export interface SandboxRule {
  ruleIndex: number;
  fields: readonly ScannerField[];
  pattern: string;
  flags: string;
}

export interface SandboxText {
  stepIndex: number;
  field: ScannerField;
  text: string;
}

export type SandboxHit = { ruleIndex: number; stepIndex: number; field: ScannerField; text: string };

// Inputs go in and results come out as JSON, so nothing of the host's objects is reachable from the context.
const MATCH_SCRIPT = new vm.Script(`(() => {
  const rules = JSON.parse(rulesJson);
  const texts = JSON.parse(textsJson);
  const out = [];
  for (const r of rules) {
    const re = new RegExp(r.pattern, r.flags);
    for (const t of texts) {
      if (!r.fields.includes(t.field)) continue;
      const m = re.exec(t.text);
      if (m) out.push({ ruleIndex: r.ruleIndex, stepIndex: t.stepIndex, field: t.field, text: m[0] });
    }
  }
  return JSON.stringify(out);
})()`);

export class ScanTimeout extends Error {
  constructor(budgetMs: number) {
    super(`the scanner's patterns took longer than ${budgetMs} ms on this trajectory and were stopped`);
    this.name = "ScanTimeout";
  }
}

function isTimeout(e: unknown): boolean {
  return !!e && typeof e === "object" && (e as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT";
}

/** Every rule's first match in each text it reads. Throws ScanTimeout when the budget runs out. */
export function matchInSandbox(rules: readonly SandboxRule[], texts: readonly SandboxText[], budgetMs = SCAN_BUDGET_MS): SandboxHit[] {
  if (!rules.length || !texts.length) return [];
  const context = vm.createContext({ rulesJson: JSON.stringify(rules), textsJson: JSON.stringify(texts) });
  try {
    return JSON.parse(MATCH_SCRIPT.runInContext(context, { timeout: budgetMs }) as string) as SandboxHit[];
  } catch (e) {
    if (isTimeout(e)) throw new ScanTimeout(budgetMs);
    throw e;
  }
}

// Every pattern over its own probe texts; `at` tells, once the budget ran out, which pattern and text were running.
const PROBE_SCRIPT = new vm.Script(`(() => {
  const probes = JSON.parse(probesJson);
  for (let p = 0; p < probes.length; p++) {
    const re = new RegExp(probes[p].pattern, probes[p].flags);
    for (let t = 0; t < probes[p].texts.length; t++) {
      at = [p, t];
      re.exec(probes[p].texts[t]);
    }
  }
  at = null;
})()`);

export interface PatternToCheck {
  pattern: string;
  flags: string;
  /** The input it came from (`rules[0].pattern`), named in a refusal. */
  field: string;
}

/**
 * The full check of the patterns of one scanner a researcher wants to save: the static guard (regex-guard.ts) on
 * each, then every pattern run on its probe texts in one sandbox call, within PROBE_BUDGET_MS for all of them. Throws
 * PatternRefused naming the field of the pattern that was running when the budget ran out.
 */
export function checkPatternsSafe(patterns: readonly PatternToCheck[], budgetMs = PROBE_BUDGET_MS): void {
  for (const p of patterns) checkPattern(p.pattern, p.flags, p.field);
  if (!patterns.length) return;
  const probes = patterns.map((p) => ({ pattern: p.pattern, flags: p.flags, texts: probeTexts(p.pattern) }));
  const context = vm.createContext({ probesJson: JSON.stringify(probes), at: null });
  try {
    PROBE_SCRIPT.runInContext(context, { timeout: budgetMs });
  } catch (e) {
    if (!isTimeout(e)) throw e;
    const [p, t] = (context.at as [number, number] | null) ?? [0, 0];
    const text = probes[p]!.texts[t]!;
    const sample = JSON.stringify(text.slice(0, 12));
    throw new PatternRefused(
      patterns[p]!.field,
      `the scanner's patterns took longer than ${budgetMs} ms together on their test texts, and this one was still running on a text of ${text.length} characters (${sample}…): it backtracks catastrophically; make its repeated parts unambiguous`,
    );
  }
}

/** checkPatternsSafe for a single pattern. */
export function checkPatternSafe(pattern: string, flags: string, field: string, budgetMs = PROBE_BUDGET_MS): void {
  checkPatternsSafe([{ pattern, flags, field }], budgetMs);
}
