"use client";
import { useMutation } from "@tanstack/react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../../_trpc/client";
import { RevealEvaluatorField, type EvaluatorChoice } from "./reveal-evaluator-field";
import { PeopleChecks, type Person } from "./people-checks";

type Filter = NonNullable<inferRouterInputs<AppRouter>["campaigns"]["create"]["filter"]>;
type Template = inferRouterOutputs<AppRouter>["campaigns"]["templates"][number];

type CreateInput = inferRouterInputs<AppRouter>["campaigns"]["create"];
type PairwiseInput = inferRouterInputs<AppRouter>["pairwise"]["create"];
type Kind = "label" | "pairwise";

/**
 * The New campaign page's form: the kind (label or pairwise), that kind's settings (the protocol template and label
 * schema, or the pairwise options), who annotates, and the button that creates the campaign over the selection.
 */
export function NewCampaignForm({
  filter,
  count,
  people,
  templates,
  evaluators = [],
}: {
  filter: Filter;
  count: number;
  people: Person[];
  templates: Template[];
  evaluators?: EvaluatorChoice[];
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.campaigns.create.mutationOptions());
  const createPairwise = useMutation(trpc.pairwise.create.mutationOptions());
  // A label campaign asks for a verdict on each trajectory; a pairwise one asks which of two attempts at a task is better.
  const [kind, setKind] = useState<Kind>("label");
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(people.filter((p) => p.role === "annotator").map((p) => p.id)));
  const [qaReviewers, setQaReviewers] = useState<Set<string>>(() => new Set());
  const [templateId, setTemplateId] = useState<Template["id"]>("webvoyager");
  const template = templates.find((t) => t.id === templateId) ?? templates[0]!;
  // Typed text survives a change of template (the fields below are keyed by it); guidelines the researcher has not
  // touched (null) follow the template.
  const [typed, setTyped] = useState<TypedText>({ name: "", guidelines: null });
  const [error, setError] = useState("");

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError("");
    const f = new FormData(e.currentTarget);
    try {
      if (kind === "pairwise") {
        const made = await createPairwise.mutateAsync(pairwiseCampaignInput(f, filter, [...chosen]));
        router.push(`/campaigns/${made.campaign.id}`);
        return;
      }
      const input = labelCampaignInput(f, { filter, template: template.id, annotatorIds: [...chosen], qaReviewerIds: [...qaReviewers] });
      if (typeof input === "string") return setError(input);
      const c = await create.mutateAsync(input);
      router.push(`/campaigns/${c.id}`);
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-4" data-testid="new-campaign-form">
      <KindPicker kind={kind} setKind={setKind} />
      {kind === "pairwise" ? (
        <PairwiseSettings typed={typed} setTyped={setTyped} />
      ) : (
        <>
          <TemplatePicker templates={templates} templateId={templateId} setTemplateId={setTemplateId} />
          {/* Keyed by template so choosing another one resets its settings to that template's values (not the typed text). */}
          <div key={template.id} className="flex flex-col gap-4">
            <LabelCampaignSettings template={template} typed={typed} setTyped={setTyped} evaluators={evaluators} />
            <LabelSchemaSettings schema={template.labelSchema} />
          </div>
        </>
      )}
      <WhoAnnotates kind={kind} people={people} chosen={chosen} setChosen={setChosen} qaReviewers={qaReviewers} setQaReviewers={setQaReviewers} />
      {error && (
        <p role="alert" className="text-[12.5px] text-rose-700">
          {error}
        </p>
      )}
      <div className="flex justify-end">
        <button type="submit" className="btn btn-on h-8" disabled={create.isPending || createPairwise.isPending || count === 0}>
          {kind === "pairwise" ? "Create pairwise campaign over" : "Create campaign over"} {count} trajector{count === 1 ? "y" : "ies"}
        </button>
      </div>
    </form>
  );
}

/**
 * A label campaign's creation input from the form's fields, or the sentence saying which field is wrong (the custom
 * questions are the one field the browser cannot check: they must be a JSON list).
 */
function labelCampaignInput(
  f: FormData,
  fixed: { filter: Filter; template: CreateInput["template"]; annotatorIds: string[]; qaReviewerIds: string[] },
): CreateInput | string {
  const on = (field: string) => f.get(field) === "on";
  const categories = String(f.get("categories"))
    .split("\n")
    .map((c) => c.trim())
    .filter(Boolean);
  let questions: Record<string, unknown>[] = [];
  const questionsText = String(f.get("questions") ?? "").trim();
  if (questionsText) {
    try {
      questions = JSON.parse(questionsText);
      if (!Array.isArray(questions)) throw new Error("not a list");
    } catch (err) {
      return `Custom questions: not a JSON list of questions (${(err as Error).message})`;
    }
  }
  return {
    ...fixed,
    name: String(f.get("name")),
    instructions: String(f.get("instructions") ?? ""),
    annotatorsPerItem: Number(f.get("k")),
    blind: on("blind"),
    revealEvaluator: String(f.get("revealEvaluator") ?? "") || null,
    reservationMinutes: Number(f.get("reservation")),
    labelSchema: {
      categories,
      requireCategory: on("requireCategory"),
      allowUnsure: on("allowUnsure"),
      firstFailingStep: on("firstFailingStep"),
      note: on("note"),
      agreementOn: f.get("agreementOn") === "verdict" ? "verdict" : "verdict_and_category",
      allowNotExecutable: on("allowNotExecutable"),
      requireFailureStep: on("requireFailureStep"),
      requireReasoning: on("requireReasoning"),
      qaReview: on("qaReview"),
      questions,
    },
  };
}

/** A pairwise campaign's creation input from the form's fields (an empty number field is left to the server's default). */
function pairwiseCampaignInput(f: FormData, filter: Filter, annotatorIds: string[]): PairwiseInput {
  const whole = (field: string) => {
    const v = String(f.get(field) ?? "").trim();
    return v === "" ? undefined : Number(v);
  };
  const instructions = String(f.get("instructions") ?? "").trim();
  return {
    name: String(f.get("name")),
    ...(instructions ? { instructions } : {}),
    filter,
    annotatorsPerItem: whole("k"),
    pairsPerTask: whole("pairsPerTask"),
    seed: whole("seed"),
    annotatorIds,
  };
}

/** A setting's checkbox with its hint underneath. */
function Check({ name, label, hint, on = true }: { name: string; label: string; hint: string; on?: boolean }) {
  return (
    <label className="flex items-start gap-2 text-[12.5px]">
      <input type="checkbox" name={name} defaultChecked={on} className="mt-0.5 accent-indigo-600" />
      <span>
        {label}
        <span className="block text-2xs text-zinc-500">{hint}</span>
      </span>
    </label>
  );
}

/** The protocol templates to start a label campaign from. */
function TemplatePicker({
  templates,
  templateId,
  setTemplateId,
}: {
  templates: Template[];
  templateId: Template["id"];
  setTemplateId: (id: Template["id"]) => void;
}) {
  return (
    <ChoiceCards title="Protocol" name="template" groupLabel="Protocol template" choices={templates} value={templateId} onChange={setTemplateId}>
      <p className="text-2xs text-zinc-500">
        The campaign keeps its own copy of the template: everything below can be edited, and the campaign page reports how far it meets the protocol.
      </p>
    </ChoiceCards>
  );
}

/** A label campaign's name, guidelines, annotators per trajectory, reservation, blind and reveal settings. */
function LabelCampaignSettings({
  template,
  typed,
  setTyped,
  evaluators,
}: {
  template: Template;
  typed: TypedText;
  setTyped: (t: TypedText) => void;
  evaluators: EvaluatorChoice[];
}) {
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3">
      <h2 className="section-title">Campaign</h2>
      <NameAndGuidelines typed={typed} setTyped={setTyped} template={template} />
      <div className="grid grid-cols-2 gap-3">
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Annotators per trajectory
          <input name="k" type="number" min={1} max={20} defaultValue={template.annotatorsPerItem} className="field h-8" />
        </label>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Reservation (minutes)
          <input name="reservation" type="number" min={1} max={1440} defaultValue={30} className="field h-8" />
        </label>
      </div>
      <Check
        name="blind"
        label="Blind labelling"
        hint="Annotators see no judge verdict, rule result or other label of a trajectory until they have submitted theirs (enforced by the server)."
      />
      <RevealEvaluatorField evaluators={evaluators} />
    </section>
  );
}

/** A label campaign's schema: error categories, what a label must hold, custom questions and what counts as agreement. */
function LabelSchemaSettings({ schema }: { schema: Template["labelSchema"] }) {
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3">
      <h2 className="section-title">Label schema</h2>
      <p className="text-[12px] text-zinc-600">
        Verdict: success or failure (and, if allowed, not executable or unsure). Failures get an error category from this list (keys 1–9 pick them, in this
        order).
      </p>
      <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
        Error categories, one per line (at most 9)
        <textarea
          name="categories"
          rows={5}
          defaultValue={schema.categories.join("\n")}
          className="rounded-md border border-zinc-300 px-2 py-1 font-mono text-[12px] font-normal shadow-xs focus:border-indigo-400 focus:outline-none"
        />
      </label>
      <div className="grid gap-2 sm:grid-cols-2">
        <Check name="requireCategory" label="A failure needs a category" hint="Otherwise the category is optional." on={schema.requireCategory} />
        <Check name="firstFailingStep" label="Ask for the first failing step" hint="`f` marks the step on screen." on={schema.firstFailingStep} />
        <Check
          name="requireFailureStep"
          label="A failure needs its failure point"
          hint="The first failing step becomes required for failures."
          on={schema.requireFailureStep ?? false}
        />
        <Check name="note" label="Free-text note" hint="Shown to the adjudicator next to the label." on={schema.note} />
        <Check name="requireReasoning" label="A failure needs reasoning" hint="The note becomes required for failures." on={schema.requireReasoning ?? false} />
        <Check
          name="allowUnsure"
          label="Allow “unsure”"
          hint="Kept as its own value and left out of κ; unsure items go to adjudication."
          on={schema.allowUnsure}
        />
        <Check
          name="allowNotExecutable"
          label="Allow “not executable”"
          hint="Online-Mind2Web's 2: CAPTCHA, site down, task no longer possible."
          on={schema.allowNotExecutable ?? false}
        />
        <Check
          name="qaReview"
          label="QA review stage"
          hint="Once an item has its labels, a QA reviewer confirms or corrects it."
          on={schema.qaReview ?? false}
        />
      </div>
      <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
        Custom questions (JSON list; types single_choice, multiple_choice, number, text, step_ref; any may be perStep)
        <textarea
          name="questions"
          rows={4}
          defaultValue={schema.questions?.length ? JSON.stringify(schema.questions, null, 1) : ""}
          placeholder='[{"id": "blocker", "type": "single_choice", "prompt": "What blocked the agent?", "options": ["captcha", "login", "none"], "required": true}]'
          className="rounded-md border border-zinc-300 px-2 py-1 font-mono text-[11.5px] font-normal shadow-xs focus:border-indigo-400 focus:outline-none"
        />
      </label>
      <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
        Consolidated automatically when the annotators agree on
        <select name="agreementOn" className="field h-8" defaultValue={schema.agreementOn}>
          <option value="verdict_and_category">the verdict and, for failures, the category</option>
          <option value="verdict">the verdict only (category: majority, if any)</option>
        </select>
      </label>
    </section>
  );
}

/** Who may annotate, and (label campaigns) which annotators also do the QA review. */
function WhoAnnotates({
  kind,
  people,
  chosen,
  setChosen,
  qaReviewers,
  setQaReviewers,
}: {
  kind: Kind;
  people: Person[];
  chosen: Set<string>;
  setChosen: (f: (s: Set<string>) => Set<string>) => void;
  qaReviewers: Set<string>;
  setQaReviewers: (f: (s: Set<string>) => Set<string>) => void;
}) {
  return (
    <>
      <section className="panel flex flex-col gap-2 px-4 py-3">
        <h2 className="section-title">Who may annotate ({chosen.size})</h2>
        {people.length === 0 ? (
          <p className="text-[12px] text-zinc-500">No accounts yet besides yours; an admin creates them on the Users page.</p>
        ) : (
          <PeopleChecks people={people} isChosen={(id) => chosen.has(id)} onToggle={(id, on) => setChosen((s) => toggled(s, id, on))} withRole />
        )}
      </section>
      {kind === "label" && (
        <section className="panel flex flex-col gap-2 px-4 py-3">
          <h2 className="section-title">QA reviewers ({qaReviewers.size})</h2>
          <p className="text-2xs text-zinc-500">
            Researchers and admins can always do the QA review; tick annotators who should too. They see an item&apos;s labels only once its labelling is over.
          </p>
          <PeopleChecks
            people={people.filter((p) => p.role === "annotator")}
            isChosen={(id) => qaReviewers.has(id)}
            onToggle={(id, on) => setQaReviewers((s) => toggled(s, id, on))}
            label="QA reviewer"
          />
        </section>
      )}
    </>
  );
}

type TypedText = { name: string; guidelines: string | null };

const KINDS = [
  { id: "label", name: "Label each trajectory", summary: "A verdict (and error category) per trajectory, several annotators each, disagreements adjudicated." },
  {
    id: "pairwise",
    name: "Pairwise: which attempt is better",
    summary: "Two attempts at the same task by different runs side by side; answers rank the runs (Bradley–Terry) and export as preference pairs.",
  },
] as const;

/** A pairwise campaign's settings: its name and guidelines, answers per pair, pairs per task and the seed that draws them. */
function PairwiseSettings({ typed, setTyped }: { typed: TypedText; setTyped: (t: TypedText) => void }) {
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3" data-testid="pairwise-settings">
      <h2 className="section-title">Pairwise campaign</h2>
      <p className="text-[12px] text-zinc-600">
        For each task of the selection, one attempt per run is paired with another run&apos;s attempt. Annotators see the two side by side, never which run made
        them, and answer with 1 (left better), 2 (right better), 3 (tie) or 4 (both fail). Tasks attempted by only one run give no pair.
      </p>
      <CampaignNameField typed={typed} setTyped={setTyped} placeholder="e.g. Agent A vs agent B, preferences" />
      <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
        Guidelines for annotators (markdown; leave empty for the standard pairwise instructions)
        <textarea
          name="instructions"
          rows={4}
          className="rounded-md border border-zinc-300 px-2 py-1 font-mono text-[12px] font-normal shadow-xs focus:border-indigo-400 focus:outline-none"
          value={typed.guidelines ?? ""}
          onChange={(e) => setTyped({ ...typed, guidelines: e.target.value })}
        />
      </label>
      <div className="grid grid-cols-3 gap-3">
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Annotators per pair
          <input name="k" type="number" min={1} max={20} defaultValue={1} className="field h-8" />
        </label>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Pairs per task (empty: all)
          <input name="pairsPerTask" type="number" min={1} max={1000} placeholder="all" className="field h-8" />
        </label>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Seed
          <input name="seed" type="number" min={0} defaultValue={1} className="field h-8" />
        </label>
      </div>
      <p className="text-2xs text-zinc-500">The seed draws which attempt of a run is paired, which pairs are kept and which side each attempt is shown on.</p>
    </section>
  );
}

/** The campaign's name, as typed: the same field for every kind of campaign. */
function CampaignNameField({ typed, setTyped, placeholder }: { typed: TypedText; setTyped: (t: TypedText) => void; placeholder: string }) {
  return (
    <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
      Name
      <input
        name="name"
        required
        maxLength={200}
        className="field h-8 text-[13px]"
        placeholder={placeholder}
        value={typed.name}
        onChange={(e) => setTyped({ ...typed, name: e.target.value })}
      />
    </label>
  );
}

/** The campaign's name and guidelines, as typed: kept across template changes, which only offer their guidelines back. */
function NameAndGuidelines({ typed, setTyped, template }: { typed: TypedText; setTyped: (t: TypedText) => void; template: Template }) {
  return (
    <>
      <CampaignNameField typed={typed} setTyped={setTyped} placeholder="e.g. WebVoyager GPT-4V, human evaluation" />
      {/* The way back to the template's text sits on the label's line, in view while the guidelines are. */}
      <div className="flex flex-col gap-1">
        <div className="flex flex-wrap items-baseline justify-between gap-x-3">
          <label htmlFor="campaign-guidelines" className="text-[12px] font-medium text-zinc-700">
            Guidelines for annotators (markdown; shown on the labelling page with the key g)
          </label>
          {typed.guidelines !== null && typed.guidelines !== template.guidelines && (
            <button type="button" className="link text-[12px]" onClick={() => setTyped({ ...typed, guidelines: null })} data-testid="template-guidelines">
              Use the {template.name} template&apos;s guidelines instead of yours
            </button>
          )}
        </div>
        <textarea
          id="campaign-guidelines"
          name="instructions"
          rows={8}
          className="rounded-md border border-zinc-300 px-2 py-1 font-mono text-[12px] font-normal shadow-xs focus:border-indigo-400 focus:outline-none"
          value={typed.guidelines ?? template.guidelines}
          onChange={(e) => setTyped({ ...typed, guidelines: e.target.value })}
        />
      </div>
    </>
  );
}

/** Label each trajectory, or compare two attempts at a task. */
function KindPicker({ kind, setKind }: { kind: Kind; setKind: (k: Kind) => void }) {
  return <ChoiceCards title="Kind" name="kind" groupLabel="Campaign kind" choices={KINDS} value={kind} onChange={setKind} />;
}

/** A panel of radio cards, one per choice (its name, its version when it has one, what it does), the chosen one tinted. */
function ChoiceCards<T extends string>({
  title,
  name,
  groupLabel,
  choices,
  value,
  onChange,
  children,
}: {
  title: string;
  name: string;
  groupLabel: string;
  choices: readonly { id: T; name: string; summary: string; version?: number | string }[];
  value: T;
  onChange: (id: T) => void;
  children?: ReactNode;
}) {
  return (
    <section className="panel flex flex-col gap-2 px-4 py-3">
      <h2 className="section-title">{title}</h2>
      <div className="grid gap-2 sm:grid-cols-2" role="radiogroup" aria-label={groupLabel}>
        {choices.map((c) => (
          <label
            key={c.id}
            className={`flex cursor-pointer items-start gap-2 rounded-md border px-2.5 py-2 text-[12.5px] ${c.id === value ? "border-indigo-400 bg-indigo-50" : "border-zinc-200"}`}
          >
            <input type="radio" name={name} value={c.id} checked={c.id === value} onChange={() => onChange(c.id)} className="mt-0.5 accent-indigo-600" />
            <span>
              <span className="font-medium">{c.name}</span>
              {c.version !== undefined && (
                <>
                  {" "}
                  <span className="text-2xs text-zinc-500">v{c.version}</span>
                </>
              )}
              <span className="block text-2xs text-zinc-600">{c.summary}</span>
            </span>
          </label>
        ))}
      </div>
      {children}
    </section>
  );
}

/** A copy of the set with `id` in it or not. */
function toggled(set: Set<string>, id: string, on: boolean): Set<string> {
  const next = new Set(set);
  if (on) next.add(id);
  else next.delete(id);
  return next;
}
