"use client";
/**
 * The campaign's own questions in the label panel, in Tab order after the verdict: choices as native radio
 * buttons and checkboxes (arrow keys move within a group), numbers, text and step references as inputs. A
 * per-step question is answered for the step on screen; the steps already answered are listed and can be opened.
 * The server checks every answer against the schema on submit and names the question when one is wrong.
 */
import type { Question } from "@/server/domain/annotation/questions";

type Answers = Record<string, unknown>;

function isAsked(q: Question, verdict: string | null): boolean {
  return q.when === "always" || q.when === verdict;
}

function ValueInput({
  q,
  value,
  onChange,
  disabled,
  stepCount,
  name,
}: {
  q: Question;
  value: unknown;
  onChange: (v: unknown) => void;
  disabled: boolean;
  stepCount: number;
  name: string;
}) {
  switch (q.type) {
    case "single_choice":
      return (
        <div className="flex flex-wrap gap-x-3 gap-y-0.5" role="radiogroup" aria-label={q.prompt}>
          {q.options.map((o) => (
            <label key={o} className="flex items-center gap-1 text-[12.5px]">
              <input type="radio" name={name} disabled={disabled} checked={value === o} onChange={() => onChange(o)} className="accent-indigo-600" />
              {o}
            </label>
          ))}
        </div>
      );
    case "multiple_choice": {
      const chosen = Array.isArray(value) ? (value as string[]) : [];
      return (
        <div className="flex flex-wrap gap-x-3 gap-y-0.5" role="group" aria-label={q.prompt}>
          {q.options.map((o) => (
            <label key={o} className="flex items-center gap-1 text-[12.5px]">
              <input
                type="checkbox"
                disabled={disabled}
                checked={chosen.includes(o)}
                onChange={(e) => onChange(e.target.checked ? [...chosen, o] : chosen.filter((c) => c !== o))}
                className="accent-indigo-600"
              />
              {o}
            </label>
          ))}
        </div>
      );
    }
    case "number":
      return (
        <input
          type="number"
          aria-label={q.prompt}
          disabled={disabled}
          min={q.min ?? undefined}
          max={q.max ?? undefined}
          step={q.integer ? 1 : "any"}
          value={typeof value === "number" ? value : ""}
          onChange={(e) => onChange(e.target.value === "" ? null : Number(e.target.value))}
          className="field h-7 w-28"
        />
      );
    case "text":
      return (
        <textarea
          aria-label={q.prompt}
          disabled={disabled}
          rows={2}
          maxLength={q.maxLength}
          value={typeof value === "string" ? value : ""}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") e.currentTarget.blur();
          }}
          className="rounded-md border border-zinc-300 px-2 py-1 text-[12.5px] shadow-xs focus:border-indigo-400 focus:outline-none"
        />
      );
    case "step_ref":
      return (
        <select
          aria-label={q.prompt}
          disabled={disabled}
          value={typeof value === "number" ? String(value) : ""}
          onChange={(e) => onChange(e.target.value === "" ? null : Number(e.target.value))}
          className="field h-7 w-32"
        >
          <option value="">no step</option>
          {Array.from({ length: stepCount }, (_, i) => (
            <option key={i} value={i}>
              step {i + 1}
            </option>
          ))}
        </select>
      );
  }
}

export function QuestionFields(props: {
  questions: readonly Question[];
  verdict: string | null;
  answers: Answers;
  onChange: (answers: Answers) => void;
  disabled: boolean;
  stepCount: number;
  current: number;
  go: (index: number) => void;
}) {
  const { questions, verdict, answers, onChange, disabled, stepCount, current, go } = props;
  const asked = questions.filter((q) => isAsked(q, verdict));
  if (!asked.length) return null;
  const set = (id: string, v: unknown) => onChange({ ...answers, [id]: v });
  return (
    <fieldset className="flex flex-col gap-2" data-testid="custom-questions">
      <legend className="mb-1 text-[12px] font-medium text-zinc-700">Questions</legend>
      {asked.map((q) => {
        if (!q.perStep) {
          return (
            <div key={q.id} className="flex flex-col gap-1" data-question={q.id}>
              <span className="text-[12px] text-zinc-700">
                {q.prompt}
                {q.required ? <span className="text-rose-600"> *</span> : <span className="text-zinc-400"> (optional)</span>}
              </span>
              <ValueInput q={q} name={`q-${q.id}`} value={answers[q.id]} onChange={(v) => set(q.id, v)} disabled={disabled} stepCount={stepCount} />
            </div>
          );
        }
        const perStep = (answers[q.id] && typeof answers[q.id] === "object" && !Array.isArray(answers[q.id]) ? answers[q.id] : {}) as Record<string, unknown>;
        const answered = Object.keys(perStep)
          .filter((k) => perStep[k] !== null && perStep[k] !== "" && !(Array.isArray(perStep[k]) && (perStep[k] as unknown[]).length === 0))
          .map(Number)
          .sort((a, b) => a - b);
        return (
          <div key={q.id} className="flex flex-col gap-1" data-question={q.id}>
            <span className="text-[12px] text-zinc-700">
              {q.prompt} <span className="text-zinc-500">— for step {current + 1}</span>
              {q.required ? <span className="text-rose-600"> *</span> : null}
            </span>
            <ValueInput
              q={q}
              name={`q-${q.id}-${current}`}
              value={perStep[String(current)]}
              onChange={(v) => set(q.id, { ...perStep, [String(current)]: v })}
              disabled={disabled}
              stepCount={stepCount}
            />
            {answered.length > 0 && (
              <span className="flex flex-wrap items-center gap-1 text-2xs text-zinc-500">
                answered for
                {answered.map((s) => (
                  <button key={s} type="button" className="rounded border border-zinc-300 px-1 tabular-nums hover:bg-zinc-50" onClick={() => go(s)}>
                    {s + 1}
                  </button>
                ))}
              </span>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

/** Answers as the server takes them: empty ones left out, per-step maps without empty steps. */
export function answersForSubmit(questions: readonly Question[], verdict: string | null, answers: Answers): Answers {
  const empty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
  const out: Answers = {};
  for (const q of questions) {
    if (!isAsked(q, verdict)) continue;
    const v = answers[q.id];
    if (q.perStep) {
      if (!v || typeof v !== "object") continue;
      const steps = Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => !empty(x)));
      if (Object.keys(steps).length) out[q.id] = steps;
    } else if (!empty(v)) out[q.id] = v;
  }
  return out;
}
