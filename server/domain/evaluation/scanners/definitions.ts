/**
 * Scanners: detectors of environment faults over a trajectory's steps (a CAPTCHA, a login wall, access denied, a
 * site that is down, a cookie banner the agent keeps fighting, a rate limit, a blank page). A fault is not the
 * agent's failure, so finding them tells a researcher which failures to discount; a scanner is only trusted once
 * its precision and recall against people's labels are known (./measure.ts).
 *
 * A scanner is a set of rules, any of which marks a step:
 * - `regex`: a regular expression over chosen fields of the step (SCANNER_FIELDS), checked by ./regex-guard.ts;
 * - `blank_screenshot`: the step's screenshot is nearly one colour (./pixels.ts).
 * With `minConsecutive` > 1 a step counts only when the rules marked it and the steps before it, that many in a row
 * (a cookie banner met once is normal; met at three steps running, the agent is stuck on it).
 *
 * Built-in scanners ship with Verdict (BUILT_IN_SCANNERS); researchers add their own, stored in the database.
 */
import { z } from "zod";
import type { ParsedAction, SomElement } from "../../types";
import { describeAction } from "../../player/action-text";
import { sha256 } from "../../content-hash";
import { checkPattern, PatternRefused } from "./regex-guard";
import { DEFAULT_BLANK_SHARE } from "./pixels";

/** The step texts a regex rule can read. `element` is the text of the page's marked elements (its accessibility text). */
export const SCANNER_FIELDS = ["thought", "action", "element", "url", "error", "answer"] as const;
export type ScannerField = (typeof SCANNER_FIELDS)[number];

export type ScannerRule = { kind: "regex"; fields: ScannerField[]; pattern: string; flags: string } | { kind: "blank_screenshot"; minShare: number };

/** What defines a scanner, as a researcher writes it and the database stores it. */
export interface ScannerValues {
  /** Short name used in URLs and searches (`scanner:captcha`): lower-case letters, digits and `_`. */
  key: string;
  name: string;
  description: string;
  /** The error category people give trajectories with this fault: what precision and recall are measured against. */
  category: string;
  rules: ScannerRule[];
  minConsecutive: number;
}

export interface ScannerDefinition extends ScannerValues {
  builtIn: boolean;
}

/** Each field of a step is read up to this many characters: scanners look for short notices, not whole pages. */
export const MAX_FIELD_CHARS = 20_000;
export const MAX_RULES = 8;

const everyText: ScannerField[] = ["thought", "element", "error", "answer"];

/**
 * The built-in scanners. Their patterns are documented in docs/guide/scanners.md; each is tested to fire and not to
 * fire on hand-made steps (tests/unit/scanners.test.ts). Every one was written for the class of page, not one site.
 */
export const BUILT_IN_SCANNERS: readonly ScannerDefinition[] = [
  {
    key: "captcha",
    name: "CAPTCHA",
    description: "A CAPTCHA or human check stands between the agent and the page.",
    category: "captcha",
    rules: [
      {
        kind: "regex",
        fields: everyText,
        pattern: String.raw`\b(?:re)?captcha\b|\bhcaptcha\b|\bi['’]?m not a robot\b|\bverify (?:that )?you(?: are|['’]re) (?:a )?human\b|\bpress (?:&|and) hold\b|\bare you a robot\b`,
        flags: "i",
      },
      { kind: "regex", fields: ["url"], pattern: String.raw`recaptcha|hcaptcha\.com|captcha-delivery\.com|challenges\.cloudflare\.com|/captcha\b`, flags: "i" },
    ],
    minConsecutive: 1,
    builtIn: true,
  },
  {
    key: "login_wall",
    name: "Login wall",
    description: "The page asks the agent to sign in before it shows what the task needs.",
    category: "login wall",
    rules: [
      {
        kind: "regex",
        fields: ["element", "error", "thought"],
        pattern: String.raw`\b(?:sign|log) ?in to (?:continue|view|see|access|read)\b|\bplease (?:sign|log) ?in\b|\byou (?:must|need to) (?:be )?(?:signed|logged|sign|log) ?in\b|\blogin required\b|\bcreate an account to continue\b`,
        flags: "i",
      },
    ],
    minConsecutive: 1,
    builtIn: true,
  },
  {
    key: "access_denied",
    name: "Access denied",
    description: "The site refused the request: a 403, a firewall or bot block.",
    category: "access denied",
    rules: [
      {
        kind: "regex",
        fields: ["element", "error", "thought"],
        pattern: String.raw`\baccess (?:is |was )?denied\b|\b403 forbidden\b|\berror 403\b|\byou don['’]t have permission to access\b|\brequest (?:was )?blocked\b|\berror 1020\b|\bunusual traffic from your (?:computer )?network\b`,
        flags: "i",
      },
    ],
    minConsecutive: 1,
    builtIn: true,
  },
  {
    key: "site_down",
    name: "Site down",
    description: "An error page instead of the site: a 5xx, a DNS or connection failure, maintenance.",
    category: "site down",
    rules: [
      {
        kind: "regex",
        fields: ["element", "error", "thought"],
        pattern: String.raw`\b(?:500 internal server error|502 bad gateway|503 service (?:temporarily )?unavailable|504 gateway time-?out)\b|\bthis site can['’]t be reached\b|\bnet::ERR_[A-Z_]{3,40}\b|\bERR_(?:NAME_NOT_RESOLVED|CONNECTION_(?:REFUSED|RESET|TIMED_OUT)|TIMED_OUT)\b|\bserver not found\b|\btook too long to respond\b|\b(?:temporarily )?down for maintenance\b`,
        flags: "i",
      },
    ],
    minConsecutive: 1,
    builtIn: true,
  },
  {
    key: "blank_page",
    name: "Blank page",
    description: "The screenshot is nearly one colour: an empty tab, a page that never rendered.",
    category: "site down",
    rules: [{ kind: "blank_screenshot", minShare: DEFAULT_BLANK_SHARE }],
    minConsecutive: 1,
    builtIn: true,
  },
  {
    key: "cookie_loop",
    name: "Cookie-banner loop",
    description: "The agent deals with a cookie or consent banner at several steps in a row.",
    category: "cookie banner",
    rules: [
      {
        kind: "regex",
        fields: ["thought", "action", "error"],
        pattern: String.raw`\bcookies? (?:banner|consent|pop-?up|notice|dialog|prompt|settings)\b|\b(?:accept|reject|allow|decline|dismiss|close)\w* (?:all |the )?cookies?\b|\bconsent (?:banner|dialog|pop-?up)\b`,
        flags: "i",
      },
    ],
    minConsecutive: 2,
    builtIn: true,
  },
  {
    key: "rate_limit",
    name: "Rate limit",
    description: "The site says the agent sent too many requests.",
    category: "rate limit",
    rules: [
      {
        kind: "regex",
        fields: ["element", "error", "thought"],
        pattern: String.raw`\btoo many requests\b|\b(?:http|error|status)(?: code)?[ :]*429\b|\brate[- ]limit(?:ed|ing)?\b|\bquota exceeded\b`,
        flags: "i",
      },
    ],
    minConsecutive: 1,
    builtIn: true,
  },
];

/** What a scan's results depend on: the rules and the run length. A changed definition makes earlier results stale. */
export function definitionHash(def: Pick<ScannerDefinition, "rules" | "minConsecutive">): string {
  return sha256(Buffer.from(JSON.stringify({ rules: def.rules, minConsecutive: def.minConsecutive }))).slice(0, 16);
}

export function builtInScanner(key: string): ScannerDefinition | undefined {
  return BUILT_IN_SCANNERS.find((s) => s.key === key);
}

const regexRuleInput = z
  .object({
    kind: z.literal("regex"),
    fields: z
      .array(z.enum(SCANNER_FIELDS))
      .min(1, "choose at least one field to read")
      .transform((f) => [...new Set(f)]),
    pattern: z.string().max(2_000),
    flags: z.string().max(8).default("i"),
  })
  .strict();

const blankRuleInput = z
  .object({
    kind: z.literal("blank_screenshot"),
    minShare: z
      .number()
      .min(0.5, "minShare is a share of pixels from 0.5 to 1")
      .max(1, "minShare is a share of pixels from 0.5 to 1")
      .default(DEFAULT_BLANK_SHARE),
  })
  .strict();

export const scannerInput = z
  .object({
    key: z.string().regex(/^[a-z][a-z0-9_]{1,39}$/, "a key is 2–40 lower-case letters, digits or _, starting with a letter"),
    name: z.string().trim().min(1, "a scanner needs a name").max(80, "a name is at most 80 characters"),
    description: z.string().trim().max(500, "a description is at most 500 characters").default(""),
    category: z.string().trim().min(1, "name the error category people give this fault").max(80, "a category is at most 80 characters"),
    rules: z
      .array(z.discriminatedUnion("kind", [regexRuleInput, blankRuleInput]))
      .min(1, "a scanner needs at least one rule")
      .max(MAX_RULES, `at most ${MAX_RULES} rules`),
    minConsecutive: z.number().int().min(1).max(20).default(1),
  })
  .strict();

export type ScannerInput = z.input<typeof scannerInput>;

/** A researcher's scanner, checked: every pattern compiles and passes the static guard. Throws PatternRefused naming the rule. */
export function checkScanner(input: z.output<typeof scannerInput>): ScannerDefinition {
  if (builtInScanner(input.key)) throw new PatternRefused("key", `"${input.key}" is a built-in scanner's key; choose another`);
  input.rules.forEach((r, i) => {
    if (r.kind === "regex") checkPattern(r.pattern, r.flags, `rules[${i}].pattern`);
  });
  return { ...input, builtIn: false };
}

/** What a scanner reads of one step. */
export interface ScannedStep {
  index: number;
  thought: string | null;
  actionRaw: string | null;
  action: ParsedAction;
  elements: SomElement[] | null;
  url: string | null;
  error: string | null;
}

/** The action as recorded, with the text of the element it acted on ("Click [5] (Accept all cookies)"). */
function actionText(step: ScannedStep): string {
  const base = step.actionRaw ?? describeAction(step.action);
  const target = step.action.target;
  const element = target ? step.elements?.find((e) => e.label === target)?.text?.trim() : undefined;
  return element ? `${base} (${element})` : base;
}

/** A field's text as a scanner reads it; `fullLength` is set when the text was cut to MAX_FIELD_CHARS. */
export interface FieldText {
  field: ScannerField;
  text: string;
  fullLength?: number;
}

/** The texts of a step by field, each cut to MAX_FIELD_CHARS; the final answer belongs to the last step. */
export function stepTexts(step: ScannedStep, finalAnswer: string | null, isLast: boolean): FieldText[] {
  const elementText = (step.elements ?? [])
    .map((e) => e.text?.trim())
    .filter((t): t is string => !!t)
    .join("\n");
  const raw: [ScannerField, string | null][] = [
    ["thought", step.thought],
    ["action", actionText(step)],
    ["element", elementText || null],
    ["url", step.url],
    ["error", step.error],
    ["answer", isLast ? finalAnswer : null],
  ];
  return raw
    .filter((r): r is [ScannerField, string] => !!r[1])
    .map(([field, text]) => (text.length > MAX_FIELD_CHARS ? { field, text: text.slice(0, MAX_FIELD_CHARS), fullLength: text.length } : { field, text }));
}

/**
 * Why a scan that found nothing may have missed something, or null: the fields its text rules read that were longer
 * than MAX_FIELD_CHARS, whose ends the scan never saw. Such a scan is not "clean" either.
 */
export function cutFieldsProblem(def: Pick<ScannerDefinition, "rules">, texts: readonly FieldText[]): string | null {
  const read = new Set(def.rules.flatMap((r) => (r.kind === "regex" ? r.fields : [])));
  const cut = texts.filter((t) => t.fullLength !== undefined && read.has(t.field));
  if (!cut.length) return null;
  const longest = Math.max(...cut.map((t) => t.fullLength!));
  const fields = cut.length === 1 ? "1 field" : `${cut.length} fields`;
  return `read only the first ${MAX_FIELD_CHARS.toLocaleString("en-US")} characters of ${fields} (the longest has ${longest.toLocaleString("en-US")}): a match past them would not be seen`;
}

/** One rule's hit on a step, before minConsecutive is applied. */
export interface RuleHit {
  stepIndex: number;
  ruleIndex: number;
  /** The field read, or `screenshot` for a pixel rule. */
  field: ScannerField | "screenshot";
  /** The matched text, or the pixel evidence. */
  text: string;
}

/** Matched text as stored and shown: at most 200 characters, whitespace collapsed. */
export function shownMatch(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/**
 * The hits that count as matches: all of them when `minConsecutive` is 1; otherwise only hits on steps that end a
 * run of at least `minConsecutive` consecutive steps with hits (the first steps of the run count too once it is
 * long enough, so the player marks the whole loop).
 */
export function applyConsecutive(hits: readonly RuleHit[], minConsecutive: number): RuleHit[] {
  if (minConsecutive <= 1) return [...hits];
  const steps = [...new Set(hits.map((h) => h.stepIndex))].sort((a, b) => a - b);
  const kept = new Set<number>();
  let runStart = 0;
  for (let i = 0; i < steps.length; i++) {
    if (i > 0 && steps[i] !== steps[i - 1]! + 1) runStart = i;
    if (i - runStart + 1 >= minConsecutive) for (let j = runStart; j <= i; j++) kept.add(steps[j]!);
  }
  return hits.filter((h) => kept.has(h.stepIndex));
}

/** The regex rules of a scanner, compiled (built-ins and stored scanners were checked when written). */
export function regexRules(def: ScannerDefinition): { ruleIndex: number; fields: ScannerField[]; pattern: string; flags: string }[] {
  return def.rules.flatMap((r, ruleIndex) => (r.kind === "regex" ? [{ ruleIndex, fields: r.fields, pattern: r.pattern, flags: r.flags }] : []));
}

export { PatternRefused };
