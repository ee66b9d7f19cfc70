"use client";
/**
 * One labelling surface: the parts the labelling page, the reveal step, QA review and adjudication share (issue 34,
 * "one labelling surface"). The panel's header and shortcut list, the verdict buttons, the error category, the
 * failure point picked from the steps, a reasoning text area, and a decision's confidence and disagreement source.
 * Every field is controlled: each page's own hook holds the values and the keyboard, and says what a choice does.
 */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, type ReactNode, type RefObject } from "react";
import {
  DECISION_CONFIDENCES,
  DISAGREEMENT_SOURCE_NAMES,
  DISAGREEMENT_SOURCES,
  type DecisionConfidence,
  type DisagreementSource,
} from "@/server/domain/annotation/decisions";
import { Options, StackedLabel } from "../../../_components/field";
import { useTRPC } from "../../../_trpc/client";

export type LabelVerdict = "success" | "failure" | "unsure" | "not_executable";

const VERDICT_KEY: Record<LabelVerdict, string> = { success: "s", failure: "x", unsure: "q", not_executable: "b" };
const VERDICT_ON: Record<LabelVerdict, string> = {
  success: "border-emerald-400 bg-emerald-50 text-emerald-800",
  failure: "border-rose-400 bg-rose-50 text-rose-800",
  unsure: "border-amber-400 bg-amber-50 text-amber-800",
  not_executable: "border-sky-400 bg-sky-50 text-sky-800",
};

/** A verdict as a sentence names it ("not executable"). */
export function verdictName(v: string): string {
  return v === "not_executable" ? "not executable" : v;
}

/** A verdict as a button names it ("Not executable"). */
export function verdictTitle(v: string): string {
  const name = verdictName(v);
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** A panel's title and the campaign under it, with the panel's own buttons (shortcuts, guidelines) at the right. */
export function PanelHeader({ title, subtitle, subtitleTitle, children }: { title: string; subtitle: ReactNode; subtitleTitle?: string; children: ReactNode }) {
  return (
    <div className="flex items-start justify-between gap-2">
      <div className="min-w-0">
        <div className="section-title">{title}</div>
        <div className="truncate text-[12px] text-zinc-500" title={subtitleTitle}>
          {subtitle}
        </div>
      </div>
      <div className="flex gap-1">{children}</div>
    </div>
  );
}

/** The `?` list of a panel's keys. */
export function ShortcutList({ shortcuts, testId }: { shortcuts: readonly { keys: readonly string[]; description: string }[]; testId?: string }) {
  return (
    <ul className="rounded-md bg-zinc-50 px-2 py-1.5 text-[11.5px] text-zinc-600" data-testid={testId}>
      {shortcuts.map((s) => (
        <li key={s.description} className="flex items-center gap-2 py-0.5">
          <span className="flex shrink-0 gap-0.5">
            {s.keys.map((k) => (
              <kbd key={k} className="kbd">
                {k}
              </kbd>
            ))}
          </span>
          {s.description}
        </li>
      ))}
    </ul>
  );
}

/**
 * A row of verdict buttons, the chosen one pressed. `name` says what each button reads (the labelling page says
 * "Success", the review pages "success"); `keys` shows each verdict's key.
 */
export function VerdictButtons<V extends LabelVerdict>(props: {
  verdicts: readonly V[];
  value: LabelVerdict | null;
  onChoose: (v: V) => void;
  disabled?: boolean;
  /** The group's name for assistive technology; none for a second row of the same group. */
  label?: string;
  name?: (v: V) => string;
  keys?: boolean;
  height?: "h-8" | "h-9";
}) {
  const { verdicts, value, onChoose, disabled, label, name = verdictTitle, keys = true, height = "h-9" } = props;
  return (
    <div className="flex gap-2" {...(label ? { role: "group", "aria-label": label } : {})}>
      {verdicts.map((v) => (
        <button
          key={v}
          type="button"
          disabled={disabled}
          aria-pressed={value === v}
          onClick={() => onChoose(v)}
          className={`flex ${height} flex-1 items-center justify-center gap-2 rounded-md border text-[13px] font-semibold disabled:opacity-60 ${
            value === v ? VERDICT_ON[v] : "border-zinc-300 bg-white text-zinc-700 hover:bg-zinc-50"
          }`}
        >
          {name(v)} {keys && <kbd className="kbd">{VERDICT_KEY[v]}</kbd>}
        </button>
      ))}
    </div>
  );
}

/** A failure's category as radio buttons (keys 1–9 shown with `keys`); off unless the verdict is a failure. */
export function CategoryField(props: {
  categories: readonly string[];
  value: string | null;
  onChoose: (category: string) => void;
  disabled: boolean;
  legend: string;
  /** The radio group's name, unique on the page. */
  name: string;
  keys?: boolean;
}) {
  const { categories, value, onChoose, disabled, legend, name, keys = true } = props;
  if (categories.length === 0) return null;
  return (
    <fieldset disabled={disabled} className="flex flex-col gap-0.5 disabled:opacity-50">
      <legend className="mb-1 text-[12px] font-medium text-zinc-700">{legend}</legend>
      {categories.map((c, i) => (
        <label
          key={c}
          className={`flex cursor-pointer items-center gap-2 rounded px-1.5 py-0.5 text-[12.5px] ${value === c ? "bg-rose-50 text-rose-900" : "hover:bg-zinc-50"}`}
        >
          <input type="radio" name={name} className="accent-rose-600" checked={value === c} onChange={() => onChoose(c)} />
          {keys && i < 9 && <kbd className="kbd">{i + 1}</kbd>}
          {c}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The steps as small buttons to pick the failure point: the chosen one filled, the one on screen outlined and, given
 * `viewed`, the steps not opened yet dashed.
 */
export function StepPicker(props: {
  count: number;
  current: number;
  value: number | null;
  onPick: (index: number) => void;
  disabled: boolean;
  label?: string;
  testId?: string;
  viewed?: ReadonlySet<number>;
}) {
  const { count, current, value, onPick, disabled, label, testId, viewed } = props;
  const tone = (i: number) =>
    value === i
      ? "border-rose-500 bg-rose-500 text-white"
      : i === current
        ? "border-indigo-400 bg-indigo-50 text-indigo-800"
        : !viewed || viewed.has(i)
          ? "border-zinc-300 bg-white text-zinc-700"
          : "border-dashed border-zinc-300 bg-white text-zinc-400";
  return (
    <div className="flex flex-wrap gap-1" data-testid={testId} {...(label ? { role: "group", "aria-label": label } : {})}>
      {Array.from({ length: count }, (_, i) => (
        <button
          key={i}
          type="button"
          disabled={disabled}
          title={`Step ${i + 1}${i === current ? " (on screen)" : ""}`}
          onClick={() => onPick(i)}
          className={`h-6 min-w-6 rounded border px-1 text-2xs tabular-nums disabled:opacity-40 ${tone(i)}`}
        >
          {i + 1}
        </button>
      ))}
    </div>
  );
}

/**
 * A decision's failing step (QA review, adjudication): its title with the step chosen, then the steps; picking one marks
 * it (again: unmarks it) and shows it in the player. `shortcut` is the key that marks the step on screen.
 */
export function DecisionStepField(props: {
  title: string;
  shortcut?: string;
  value: number | null;
  onChange: (step: number | null) => void;
  count: number;
  current: number;
  go: (index: number) => void;
  disabled: boolean;
  testId?: string;
}) {
  const { title, shortcut, value, onChange, count, current, go, disabled, testId } = props;
  return (
    <div className="flex flex-col gap-1">
      <span className="text-[12px] font-medium text-zinc-700">
        {title}: {value === null ? "none" : `step ${value + 1}`}
        {shortcut && (
          <>
            {" "}
            <kbd className="kbd">{shortcut}</kbd>
          </>
        )}
      </span>
      <StepPicker
        count={count}
        current={current}
        value={value}
        onPick={(i) => {
          onChange(value === i ? null : i);
          go(i);
        }}
        disabled={disabled}
        testId={testId}
      />
    </div>
  );
}

/** A reasoning or note text area; Escape leaves it so that the panel's keys work again. */
export function ReasonField(props: {
  label: ReactNode;
  value: string;
  onChange: (text: string) => void;
  textareaRef?: RefObject<HTMLTextAreaElement | null>;
  disabled?: boolean;
  maxLength: number;
  placeholder: string;
  testId?: string;
}) {
  const { label, value, onChange, textareaRef, disabled, maxLength, placeholder, testId } = props;
  return (
    <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
      <span>{label}</span>
      <textarea
        ref={textareaRef}
        disabled={disabled}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") e.currentTarget.blur();
        }}
        rows={3}
        maxLength={maxLength}
        placeholder={placeholder}
        className="rounded-md border border-zinc-300 px-2 py-1 text-[12.5px] font-normal text-zinc-800 shadow-xs focus:border-indigo-400 focus:outline-none"
        data-testid={testId}
      />
    </label>
  );
}

/** What a decision (QA review, adjudication) says besides its label: how sure it is and where the disagreement came from. */
export interface DecisionMeta {
  confidence: DecisionConfidence | null;
  disagreementSource: DisagreementSource | null;
}

/** A decision's confidence and the source of the disagreement (QA review and adjudication); `onChange` gets the one that changed. */
export function DecisionDetails(props: {
  value: DecisionMeta;
  onChange: (change: Partial<DecisionMeta>) => void;
  confidenceLabel: ReactNode;
  sourceLabel: ReactNode;
  /** The selects' test ids: `<prefix>-confidence`, `<prefix>-source`. */
  testIdPrefix: string;
  disabled?: boolean;
}) {
  const { value, onChange, confidenceLabel, sourceLabel, testIdPrefix, disabled } = props;
  return (
    <div className="grid grid-cols-2 gap-2">
      <UnsetSelect
        label={confidenceLabel}
        values={DECISION_CONFIDENCES}
        value={value.confidence}
        onChoose={(confidence) => onChange({ confidence })}
        disabled={disabled}
        testId={`${testIdPrefix}-confidence`}
      />
      <UnsetSelect
        label={sourceLabel}
        values={DISAGREEMENT_SOURCES}
        text={(v) => DISAGREEMENT_SOURCE_NAMES[v]}
        value={value.disagreementSource}
        onChoose={(disagreementSource) => onChange({ disagreementSource })}
        disabled={disabled}
        testId={`${testIdPrefix}-source`}
      />
    </div>
  );
}

/** A choice that may be left unset (shown as –), inside its label. */
function UnsetSelect<T extends string>(props: {
  label: ReactNode;
  values: readonly T[];
  text?: (value: T) => ReactNode;
  value: T | null;
  onChoose: (value: T | null) => void;
  disabled?: boolean;
  testId: string;
}) {
  const { label, values, text, value, onChoose, disabled, testId } = props;
  return (
    <StackedLabel text={<span>{label}</span>}>
      <select
        className="field h-8"
        disabled={disabled}
        value={value ?? ""}
        onChange={(e) => onChoose(values.find((v) => v === e.target.value) ?? null)}
        data-testid={testId}
      >
        <option value="">–</option>
        <Options values={values} text={text} />
      </select>
    </StackedLabel>
  );
}

/**
 * Opens the campaign's next trajectory for this annotator, or its queue when there is none (or the server refuses).
 * Given the next item already (Submit & next asks for it in the submit itself, `andNext`: one round trip, not two),
 * it goes there without asking again; `null` is the queue.
 */
export function useGoToNextItem(campaignId: number): (known?: { itemNo: number } | null) => Promise<void> {
  const trpc = useTRPC();
  const router = useRouter();
  const nextM = useMutation(trpc.labelling.next.mutationOptions());
  const { mutateAsync } = nextM;
  return useCallback(
    async (known?: { itemNo: number } | null) => {
      let next = known;
      try {
        if (next === undefined) next = await mutateAsync({ campaignId });
      } catch {
        // Refused (e.g. blocked by the campaign's quality checks): the queue page says why.
        next = null;
      }
      router.push(next ? `/annotate/${campaignId}/${next.itemNo}` : `/annotate/${campaignId}`);
    },
    [campaignId, mutateAsync, router],
  );
}
