/**
 * Human evaluation protocols: the templates a campaign is created from (WebVoyager, Online-Mind2Web,
 * AgentRewardBench, custom), the QA review stage, what an adjudicator records besides the decision (confidence
 * and the source of the disagreement), and the compliance of a campaign with its template's protocol.
 *
 * A campaign keeps the template id and version it was made from and its own editable copy of the label schema
 * and guidelines, so changing a template later never changes a running campaign.
 */
import { DECISION_CONFIDENCES, DISAGREEMENT_SOURCES, type DecisionConfidence, type DisagreementSource } from "./decisions";
import { buildLabelSchema, DEFAULT_ERROR_CATEGORIES, type LabelSchema, type LabelVerdict } from "./label-schema";

export {
  DECISION_CONFIDENCES,
  DISAGREEMENT_SOURCE_NAMES,
  DISAGREEMENT_SOURCES,
  parseConfidence,
  parseDisagreementSource,
  type DecisionConfidence,
  type DisagreementSource,
} from "./decisions";

// ------------------------------------------------------------------------------------------- export codes

/**
 * Online-Mind2Web's label codes (`human_label.json`): 0 = failure, 1 = success, 2 = not executable. Verdicts
 * without a code (unsure) are left out of that export.
 */
export const ONLINE_MIND2WEB_CODES: Partial<Record<LabelVerdict, 0 | 1 | 2>> = { failure: 0, success: 1, not_executable: 2 };

export function onlineMind2WebCode(verdict: LabelVerdict): 0 | 1 | 2 | null {
  return ONLINE_MIND2WEB_CODES[verdict] ?? null;
}

export function verdictFromOnlineMind2WebCode(code: unknown): LabelVerdict | null {
  if (code === 0 || code === "0") return "failure";
  if (code === 1 || code === "1") return "success";
  if (code === 2 || code === "2") return "not_executable";
  return null;
}

// ------------------------------------------------------------------------------------------- QA stage

/**
 * Online-Mind2Web's QA reviewer: once an item has all its labels, a reviewer who sees them (QA is not blind to
 * labels: that is its point) confirms the consolidated label or corrects it, with a reason. An item is then
 * "QA done". Items of campaigns without a QA stage have no QA status.
 */
export const QA_STATUSES = ["not_ready", "pending", "done"] as const;
export type QaStatus = (typeof QA_STATUSES)[number];

export const QA_DECISIONS = ["confirmed", "corrected"] as const;
export type QaDecision = (typeof QA_DECISIONS)[number];

/** Where an item stands in the QA stage, from its consolidation state and whether a QA review was recorded. */
export function qaStatusOf(itemState: string, qaDone: boolean): QaStatus {
  if (qaDone) return "done";
  return itemState === "open" ? "not_ready" : "pending";
}

// ------------------------------------------------------------------------------------------- templates

export const TEMPLATE_IDS = ["webvoyager", "online-mind2web", "agentrewardbench", "custom"] as const;
export type TemplateId = (typeof TEMPLATE_IDS)[number];

export interface ProtocolRequirements {
  /** Every item needs at least this many labels. */
  minAnnotatorsPerItem: number;
  /** Every item needs a QA review. */
  qaReview: boolean;
}

export interface ProtocolTemplate {
  id: TemplateId;
  /** Bumped whenever the template's schema, guidelines or requirements change. */
  version: number;
  name: string;
  /** One line for the template picker. */
  summary: string;
  labelSchema: LabelSchema;
  annotatorsPerItem: number;
  requirements: ProtocolRequirements;
  /** Markdown shown to annotators (key `g` on the labelling page) and on the campaign page. */
  guidelines: string;
}

/**
 * Online-Mind2Web's failure types: the examples its human-evaluation guide names (incorrect filter application,
 * wrong navigation, hallucination, incomplete task) and the further failures its checklist spells out (sorting
 * not done with the site's sort control, a required submit or display missing).
 */
export const ONLINE_MIND2WEB_FAILURE_TYPES = [
  "incorrect filter application",
  "missing or wrong sorting",
  "wrong navigation",
  "submit or display missing",
  "hallucination",
  "incomplete task",
  "other",
] as const;

/** AgentRewardBench's answer values (annotations.csv), kept word for word so exports round-trip. */
export const AGENTREWARDBENCH_SUCCESS = ["Successful", "Unsuccessful", "Unsure"] as const;
export const AGENTREWARDBENCH_YES_NO_UNSURE = ["Yes", "No", "Unsure"] as const;
export const AGENTREWARDBENCH_YES_NO = ["Yes", "No"] as const;
export const AGENTREWARDBENCH_OPTIMALITY = ["1. Complete Failure", "2. Suboptimal", "3. Somewhat Optimal", "4. Completely Optimal", "Unsure"] as const;

const WEBVOYAGER_GUIDELINES = `# WebVoyager human evaluation

You see the task, every step the agent took (screenshot, action, its reasoning) and its final answer.

**Verdict**
- **Success**: the agent did what the task asks and, for questions, its answer is correct and supported by what the screenshots show.
- **Failure**: anything else, including a plausible answer the trajectory does not support.

**For a failure**, pick the main error category:
1. **Navigation stuck**: the agent loops, cannot leave a page, or runs out of steps.
2. **Visual grounding issue**: it acts on the wrong element or misreads the page.
3. **Hallucination**: it states something the pages never showed.
4. **Prompt misalignment**: it does something else than asked, or stops early.
5. **Other**: say what in the note.

Mark the first step where it went wrong if you can. Look at the whole trajectory, not only the last screenshot.`;

const ONLINE_MIND2WEB_GUIDELINES = `# Online-Mind2Web human evaluation

Read the task and list its key points (every constraint it states). Try the task yourself on the site if you
can, then check the agent's trajectory against the key points, step by step.

**Verdict**
- **Success (1)**: every key point is met, filters and constraints were applied exactly, and the outcome is shown or submitted.
- **Failure (0)**: a key point is missed, a filter range differs from the one asked (even slightly), "best / cheapest / latest" was not done with the site's sort control, a requirement that needs a filter was only typed into search, a required submit or display is missing, or the agent claims something the trajectory does not show.
- **Not executable (2)**: the task could not be done for reasons outside the agent: CAPTCHA, site down, the site changed so the task no longer exists, an infrastructure error.

Correct actions that end in an empty result ("no match found") are a **success**. If the page already shows only
items meeting the requirements, extra filters are not needed.

**For a failure** give all three:
- the **failure point**: the step where the agent left the correct path;
- the **failure type**;
- your **reasoning**: why it failed, citing the rule above it breaks.

Each trajectory is labelled by at least three annotators independently; a QA reviewer then checks the labels,
settles disagreements and spot-checks edge cases.`;

const AGENTREWARDBENCH_GUIDELINES = `# AgentRewardBench expert annotation

For each trajectory answer four questions from the task, the steps and the final state.

- **Trajectory success**: did the agent complete the task? Answer Unsure only if the trajectory cannot tell.
- **Side effects**: did the agent change something the task did not ask for (a purchase, a post, a setting)?
- **Optimality**: how direct was the path, from complete failure to completely optimal?
- **Looping**: did the agent repeat the same actions without progress?

"Unsure" answers are kept but left out of agreement figures.`;

const CUSTOM_GUIDELINES = `# Guidelines

Describe what a success is, what counts as a failure, and how to answer each question.`;

function template(t: Omit<ProtocolTemplate, "labelSchema"> & { labelSchema: Parameters<typeof buildLabelSchema>[0] }): ProtocolTemplate {
  return { ...t, labelSchema: buildLabelSchema(t.labelSchema) };
}

export const PROTOCOL_TEMPLATES: Record<TemplateId, ProtocolTemplate> = {
  webvoyager: template({
    id: "webvoyager",
    version: 1,
    name: "WebVoyager",
    summary: "Binary verdict with WebVoyager's error categories; 3 annotators on a subset; full trajectory.",
    labelSchema: { categories: [...DEFAULT_ERROR_CATEGORIES], requireCategory: true, allowUnsure: false, agreementOn: "verdict" },
    annotatorsPerItem: 3,
    requirements: { minAnnotatorsPerItem: 3, qaReview: false },
    guidelines: WEBVOYAGER_GUIDELINES,
  }),
  "online-mind2web": template({
    id: "online-mind2web",
    version: 1,
    name: "Online-Mind2Web",
    summary: "Success / failure / not executable (1/0/2); failure point, type and reasoning; ≥ 3 annotators and a QA review.",
    labelSchema: {
      categories: [...ONLINE_MIND2WEB_FAILURE_TYPES],
      requireCategory: true,
      allowUnsure: false,
      allowNotExecutable: true,
      firstFailingStep: true,
      requireFailureStep: true,
      note: true,
      requireReasoning: true,
      agreementOn: "verdict",
      qaReview: true,
    },
    annotatorsPerItem: 3,
    requirements: { minAnnotatorsPerItem: 3, qaReview: true },
    guidelines: ONLINE_MIND2WEB_GUIDELINES,
  }),
  agentrewardbench: template({
    id: "agentrewardbench",
    version: 1,
    name: "AgentRewardBench",
    summary: "Trajectory success, side effects, optimality and looping, in AgentRewardBench's answer values.",
    labelSchema: {
      categories: ["other"],
      requireCategory: false,
      allowUnsure: true,
      firstFailingStep: false,
      note: true,
      agreementOn: "verdict",
      questions: [
        {
          id: "trajectory_side_effect",
          type: "single_choice",
          prompt: "Did the agent cause side effects the task did not ask for?",
          options: [...AGENTREWARDBENCH_YES_NO_UNSURE],
          required: true,
        },
        {
          id: "trajectory_optimality",
          type: "single_choice",
          prompt: "How optimal was the agent's path?",
          options: [...AGENTREWARDBENCH_OPTIMALITY],
          required: true,
        },
        {
          id: "trajectory_looping",
          type: "single_choice",
          prompt: "Did the agent loop (repeat actions without progress)?",
          options: [...AGENTREWARDBENCH_YES_NO],
          required: true,
        },
      ],
    },
    annotatorsPerItem: 1,
    requirements: { minAnnotatorsPerItem: 1, qaReview: false },
    guidelines: AGENTREWARDBENCH_GUIDELINES,
  }),
  custom: template({
    id: "custom",
    version: 1,
    name: "Custom",
    summary: "Your own verdict settings, questions (choice, number, text, step) and guidelines.",
    labelSchema: {},
    annotatorsPerItem: 3,
    requirements: { minAnnotatorsPerItem: 1, qaReview: false },
    guidelines: CUSTOM_GUIDELINES,
  }),
};

export function getTemplate(id: string): ProtocolTemplate {
  if (!(TEMPLATE_IDS as readonly string[]).includes(id)) throw new Error(`template: one of ${TEMPLATE_IDS.join(", ")}, got ${JSON.stringify(id)}`);
  return PROTOCOL_TEMPLATES[id as TemplateId];
}

/** The requirements a campaign is checked against: its template's, or (no template) its own k and QA setting. */
export function requirementsOf(templateId: string | null, annotatorsPerItem: number, qaReview: boolean): ProtocolRequirements {
  if (templateId && (TEMPLATE_IDS as readonly string[]).includes(templateId) && templateId !== "custom") {
    return PROTOCOL_TEMPLATES[templateId as TemplateId].requirements;
  }
  return { minAnnotatorsPerItem: annotatorsPerItem, qaReview };
}

// ------------------------------------------------------------------------------------------- compliance

export interface ComplianceInput {
  requirements: ProtocolRequirements;
  /** One entry per campaign item: its active label count, consolidation state and whether QA was done. */
  items: readonly { labelCount: number; state: string; qaDone: boolean }[];
  /** Active labels per guideline version they were made under (null: not recorded, e.g. imported labels). */
  labelGuidelineVersions: readonly { version: number | null; labels: number }[];
  /** The campaign's current guideline version. */
  guidelineVersion: number;
}

export interface Compliance {
  items: number;
  /** Label count → number of items with that many labels, ascending by count. */
  annotatorsPerItem: { labels: number; items: number }[];
  /** Items with fewer labels than the protocol requires. */
  itemsBelowTarget: number;
  qa: { required: boolean; done: number; pending: number; notReady: number };
  /** Guideline version → labels made under it, ascending by version (null, unrecorded, last). */
  guidelineVersions: { version: number | null; labels: number }[];
  /** Labels made under an older version of the guidelines than the current one. */
  labelsOnOlderGuidelines: number;
  /** Every item has its labels and (when required) its QA review. */
  meetsProtocol: boolean;
  /** What is still missing, in words, empty when the protocol is met. */
  shortfalls: string[];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function protocolCompliance(input: ComplianceInput): Compliance {
  const { requirements: req } = input;
  const byCount = new Map<number, number>();
  let below = 0;
  let done = 0;
  let pending = 0;
  let notReady = 0;
  for (const it of input.items) {
    byCount.set(it.labelCount, (byCount.get(it.labelCount) ?? 0) + 1);
    if (it.labelCount < req.minAnnotatorsPerItem) below++;
    const status = qaStatusOf(it.state, it.qaDone);
    if (status === "done") done++;
    else if (status === "pending") pending++;
    else notReady++;
  }
  const versions = new Map<number | null, number>();
  let older = 0;
  for (const { version, labels } of input.labelGuidelineVersions) {
    if (!labels) continue;
    versions.set(version, (versions.get(version) ?? 0) + labels);
    if (version !== null && version < input.guidelineVersion) older += labels;
  }
  const shortfalls: string[] = [];
  if (!input.items.length) shortfalls.push("the campaign has no items");
  if (below) shortfalls.push(`${plural(below, "item")} below ${req.minAnnotatorsPerItem} annotator${req.minAnnotatorsPerItem === 1 ? "" : "s"}`);
  if (req.qaReview && done < input.items.length) shortfalls.push(`${plural(input.items.length - done, "item")} without a QA review`);
  return {
    items: input.items.length,
    annotatorsPerItem: [...byCount].sort((a, b) => a[0] - b[0]).map(([labels, items]) => ({ labels, items })),
    itemsBelowTarget: below,
    qa: { required: req.qaReview, done, pending, notReady },
    guidelineVersions: [...versions].sort((a, b) => (a[0] ?? Infinity) - (b[0] ?? Infinity)).map(([version, labels]) => ({ version, labels })),
    labelsOnOlderGuidelines: older,
    meetsProtocol: shortfalls.length === 0,
    shortfalls,
  };
}

// ------------------------------------------------------------------------------ decision tallies (analytics)

export interface DecisionTallyRow {
  method: string;
  qaDecision: string | null;
  confidence: string | null;
  disagreementSource: string | null;
  n: number;
}

export interface DecisionTally {
  /** Consolidated labels decided by a person: adjudicated, or reviewed in QA. */
  decisions: number;
  adjudicated: number;
  qaConfirmed: number;
  qaCorrected: number;
  /** Per disagreement source (and "not recorded"), in the vocabulary's order. */
  bySource: { source: DisagreementSource | "not recorded"; n: number }[];
  /** Per confidence (and "not recorded"), low to high. */
  byConfidence: { confidence: DecisionConfidence | "not recorded"; n: number }[];
}

/** Tallies adjudications and QA reviews by disagreement source and confidence (rows grouped by the database). */
export function tallyDecisions(rows: readonly DecisionTallyRow[]): DecisionTally {
  const sources = new Map<string, number>();
  const confidences = new Map<string, number>();
  let decisions = 0;
  let adjudicated = 0;
  let qaConfirmed = 0;
  let qaCorrected = 0;
  for (const r of rows) {
    decisions += r.n;
    if (r.method === "adjudicated") adjudicated += r.n;
    if (r.qaDecision === "confirmed") qaConfirmed += r.n;
    if (r.qaDecision === "corrected") qaCorrected += r.n;
    const s = r.disagreementSource ?? "not recorded";
    sources.set(s, (sources.get(s) ?? 0) + r.n);
    const c = r.confidence ?? "not recorded";
    confidences.set(c, (confidences.get(c) ?? 0) + r.n);
  }
  return {
    decisions,
    adjudicated,
    qaConfirmed,
    qaCorrected,
    bySource: [...DISAGREEMENT_SOURCES, "not recorded" as const].map((source) => ({ source, n: sources.get(source) ?? 0 })),
    byConfidence: [...DECISION_CONFIDENCES, "not recorded" as const].map((confidence) => ({ confidence, n: confidences.get(confidence) ?? 0 })),
  };
}
