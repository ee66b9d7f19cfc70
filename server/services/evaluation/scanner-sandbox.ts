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
/** Budget for a new pattern on each of its probe texts when it is saved. */
export const PROBE_BUDGET_MS = 500;

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

/**
 * The full check of a pattern a researcher wants to save: the static guard (regex-guard.ts), then the pattern run
 * on its probe texts within PROBE_BUDGET_MS. Throws PatternRefused naming `field`.
 */
export function checkPatternSafe(pattern: string, flags: string, field: string, budgetMs = PROBE_BUDGET_MS): void {
  checkPattern(pattern, flags, field);
  for (const text of probeTexts(pattern)) {
    try {
      matchInSandbox([{ ruleIndex: 0, fields: ["thought"], pattern, flags }], [{ stepIndex: 0, field: "thought", text }], budgetMs);
    } catch (e) {
      if (!(e instanceof ScanTimeout)) throw e;
      const sample = JSON.stringify(text.slice(0, 12));
      throw new PatternRefused(
        field,
        `the pattern took longer than ${budgetMs} ms on a test text of ${text.length} characters (${sample}…): it backtracks catastrophically; make its repeated parts unambiguous`,
      );
    }
  }
}
