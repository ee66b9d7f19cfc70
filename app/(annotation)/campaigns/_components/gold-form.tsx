"use client";
/**
 * The gold form: a trajectory's known answer in one campaign, asking what that campaign's protocol asks of a label
 * (the verdicts it accepts, a failure's category, its failure point and reasoning where required, the campaign's
 * own questions). A refused answer is shown beside the field it is about. Used on the campaign page (by trajectory
 * id) and from the player (for the trajectory on screen, the failure point defaulting to the step shown).
 */
import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";
import { QuestionFields, answersForSubmit } from "../../annotate/_components/question-fields";
import { useTRPC } from "../../../_trpc/client";
import { Options } from "../../../_components/field";

type FieldErrors = Record<string, string>;
export type GoldFormSchema = inferRouterOutputs<AppRouter>["quality"]["goldChoices"]["campaigns"][number]["schema"];

/** Steps offered by step questions when the trajectory is typed by id (its length unknown): the server checks the range. */
const UNKNOWN_LENGTH_STEPS = 50;

/** The field a refused call names (tRPC carries the service's field), or "form" for anything else. */
function fieldOfError(e: unknown): string {
  const data = (e as { data?: { field?: string | null; code?: string } } | null)?.data;
  if (data?.field) return data.field;
  return data?.code === "NOT_FOUND" ? "trajectory" : "form";
}

/** The message without the field name it starts with ("firstFailingStep: a failure needs…" → "a failure needs…"). */
function messageOf(e: unknown, field: string): string {
  const text = (e as Error).message;
  if (field === "form" || field === "trajectory") return text;
  const i = text.indexOf(": ");
  return i > 0 && text.slice(0, i).startsWith(field) ? text.slice(i + 2) : text;
}

function FieldError({ id, text }: { id: string; text?: string }) {
  if (!text) return null;
  return (
    <span id={id} className="text-2xs font-normal text-rose-700" role="alert" data-field-error>
      {text}
    </span>
  );
}

function Field({ label, error, name, children, required }: { label: string; error?: string; name: string; children: ReactNode; required?: boolean }) {
  return (
    <label className="flex max-w-80 flex-col gap-1 text-[12px] font-medium text-zinc-700" data-field={name}>
      <span>
        {label}
        {required && <span className="text-rose-600"> *</span>}
      </span>
      {children}
      <FieldError id={`gold-error-${name}`} text={error} />
    </label>
  );
}

type GoldVerdict = "success" | "failure" | "not_executable";

interface GoldFormProps {
  campaignId: number;
  schema: GoldFormSchema;
  /** The trajectory marked (from the player); absent on the campaign page, where its id is typed. */
  trajectoryId?: number;
  /** Its number of steps, when known: the failure point is then picked from them. */
  stepCount?: number;
  /** 0-based step the failure point and per-step answers start on (the player's step on screen). */
  initialStep?: number;
  onMarked: () => Promise<unknown> | void;
}

/**
 * The known answer being written and its submission: the verdict and the question answers (the other fields are read
 * from the form), each refusal kept under the field it names, and the sentence saying what became gold.
 */
function useGoldMark({ campaignId, schema, trajectoryId, onMarked }: GoldFormProps) {
  const trpc = useTRPC();
  const mark = useMutation(trpc.quality.markGold.mutationOptions());
  const [verdict, setVerdict] = useState<GoldVerdict>("success");
  const [answers, setAnswers] = useState<Record<string, unknown>>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [done, setDone] = useState("");
  const failure = verdict === "failure";
  const asksStep = schema.firstFailingStep && failure;

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const id = trajectoryId ?? Number(f.get("trajectory"));
    const stepText = String(f.get("firstFailingStep") ?? "").trim();
    const category = String(f.get("category") ?? "");
    setErrors({});
    setDone("");
    try {
      await mark.mutateAsync({
        campaignId,
        trajectoryId: id,
        verdict,
        category: failure && category ? category : null,
        // The form counts steps from 1, as the player does; the server from 0.
        firstFailingStep: asksStep && stepText !== "" ? Number(stepText) - 1 : null,
        answers: schema.questions.length ? answersForSubmit(schema.questions, verdict, answers) : undefined,
        note: String(f.get("note") ?? "") || null,
      });
      setDone(`Trajectory ${id} is gold: ${verdict.replace("_", " ")}.`);
      await onMarked();
    } catch (err) {
      const field = fieldOfError(err);
      setErrors({ [field]: messageOf(err, field) });
    }
  };

  return { verdict, setVerdict, answers, setAnswers, errors, done, failure, asksStep, submit, marking: mark.isPending };
}

export function GoldForm(props: GoldFormProps) {
  const { schema, trajectoryId, stepCount, initialStep = 0 } = props;
  const { verdict, setVerdict, answers, setAnswers, errors, done, failure, asksStep, submit, marking } = useGoldMark(props);
  return (
    <form className="flex flex-col gap-2" onSubmit={submit} aria-label="Mark a trajectory as gold" data-testid="gold-form" noValidate>
      <div className="flex flex-wrap items-start gap-2">
        {trajectoryId === undefined && (
          <Field label="Trajectory id" name="trajectory" error={errors.trajectory} required>
            <input
              name="trajectory"
              type="number"
              min={1}
              className="field w-28"
              aria-invalid={!!errors.trajectory}
              aria-describedby={errors.trajectory ? "gold-error-trajectory" : undefined}
            />
          </Field>
        )}
        <Field label="Known answer" name="verdict" error={errors.verdict}>
          <select name="verdict" className="field h-8" value={verdict} onChange={(e) => setVerdict(e.target.value as GoldVerdict)}>
            <option value="success">success</option>
            <option value="failure">failure</option>
            {schema.allowNotExecutable && <option value="not_executable">not executable</option>}
          </select>
        </Field>
        {failure && (
          <Field label="Category (optional: any counts)" name="category" error={errors.category}>
            <select name="category" className="field h-8" defaultValue="">
              <option value="">any</option>
              <Options values={schema.categories} />
            </select>
          </Field>
        )}
        {asksStep && <FailurePointField schema={schema} stepCount={stepCount ?? 0} initialStep={initialStep} error={errors.firstFailingStep} />}
        <Field
          label={schema.requireReasoning && failure ? "Reasoning (why it failed)" : "Note"}
          name="note"
          error={errors.note}
          required={schema.requireReasoning && failure}
        >
          <input name="note" className="field w-64" aria-invalid={!!errors.note} />
        </Field>
      </div>
      <GoldQuestions
        schema={schema}
        verdict={verdict}
        answers={answers}
        setAnswers={setAnswers}
        stepCount={stepCount ?? 0}
        initialStep={initialStep}
        errors={errors}
      />
      <div className="flex flex-wrap items-center gap-2">
        <button className="btn" type="submit" disabled={marking}>
          Mark gold
        </button>
        <FieldError id="gold-error-form" text={errors.form} />
        {done && (
          <span className="text-2xs text-emerald-700" role="status">
            {done}
          </span>
        )}
      </div>
    </form>
  );
}

/** The failure point: one of the trajectory's steps when its length is known, a typed step number otherwise. */
function FailurePointField({ schema, stepCount, initialStep, error }: { schema: GoldFormSchema; stepCount: number; initialStep: number; error?: string }) {
  return (
    <Field
      label={schema.requireFailureStep ? "Failure point (step)" : "First failing step (optional)"}
      name="firstFailingStep"
      error={error}
      required={schema.requireFailureStep}
    >
      {stepCount > 0 ? (
        <select name="firstFailingStep" className="field h-8 w-32" defaultValue={String(initialStep + 1)} aria-invalid={!!error}>
          {!schema.requireFailureStep && <option value="">none</option>}
          {Array.from({ length: stepCount }, (_, i) => (
            <option key={i} value={i + 1}>
              step {i + 1}
            </option>
          ))}
        </select>
      ) : (
        <input name="firstFailingStep" type="number" min={1} className="field w-28" placeholder="step number" aria-invalid={!!error} />
      )}
    </Field>
  );
}

/** The campaign's own questions for the known answer, per-step ones for a chosen step, with their refusals below. */
function GoldQuestions(props: {
  schema: GoldFormSchema;
  verdict: GoldVerdict;
  answers: Record<string, unknown>;
  setAnswers: (answers: Record<string, unknown>) => void;
  stepCount: number;
  initialStep: number;
  errors: FieldErrors;
}) {
  const { schema, verdict, answers, setAnswers, stepCount, initialStep, errors } = props;
  const [questionStep, setQuestionStep] = useState(initialStep);
  if (schema.questions.length === 0) return null;
  const perStep = schema.questions.some((q) => q.perStep && (q.when === "always" || q.when === verdict));
  const answerErrors = Object.entries(errors).filter(([k]) => k.startsWith("answers"));
  return (
    <div className="flex flex-col gap-1">
      {perStep && (
        <label className="flex items-center gap-1 text-[12px] text-zinc-700">
          Per-step answers for step
          <input
            type="number"
            min={1}
            max={stepCount || undefined}
            className="field h-7 w-20"
            value={questionStep + 1}
            onChange={(e) => setQuestionStep(Math.max(0, Number(e.target.value) - 1))}
          />
        </label>
      )}
      <QuestionFields
        questions={schema.questions}
        verdict={verdict}
        answers={answers}
        onChange={setAnswers}
        disabled={false}
        stepCount={stepCount || UNKNOWN_LENGTH_STEPS}
        current={questionStep}
        go={setQuestionStep}
      />
      {answerErrors.map(([k, text]) => (
        <FieldError key={k} id={`gold-error-${k}`} text={text} />
      ))}
    </div>
  );
}
