/**
 * A form field: its visible label (which names the control `htmlFor` points at), the control, then what is wrong
 * with it in words when something is (`problem`, announced and beside the field) or else its hint. The judge
 * forms, the judge configuration and the live-run form use it. Beside it, the small parts forms and filter bars share.
 */
import type { ComponentProps, ReactNode } from "react";

export function Field({
  label,
  htmlFor,
  hint,
  problem,
  children,
}: {
  label: string;
  htmlFor?: string;
  hint?: ReactNode;
  problem?: string;
  children: ReactNode;
}) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={htmlFor} className="text-[12px] font-medium text-zinc-700">
        {label}
      </label>
      {children}
      {problem ? (
        <p id={`${htmlFor}-problem`} className="text-2xs text-rose-700" role="alert" data-testid="field-problem">
          {problem}
        </p>
      ) : (
        hint && <div className="text-2xs text-zinc-500">{hint}</div>
      )}
    </div>
  );
}

/** A compact field: the control inside its label, the label's text above it (`title`: a tooltip that says more). */
export function StackedLabel({ text, title, children }: { text: ReactNode; title?: string; children: ReactNode }) {
  return (
    <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700" title={title}>
      {text}
      {children}
    </label>
  );
}

/** A form the page handles itself: the browser's own submit is stopped, then `onSubmit` runs with the form element. */
export function PageForm({ onSubmit, ...form }: Omit<ComponentProps<"form">, "onSubmit"> & { onSubmit: (form: HTMLFormElement) => void }) {
  return (
    <form
      {...form}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(e.currentTarget);
      }}
    />
  );
}

/** A text input whose value the page holds: `onText` gets what was typed (`testId`: its data-testid). */
export function TextInput({
  onText,
  testId,
  className = "field",
  ...input
}: Omit<ComponentProps<"input">, "onChange" | "value"> & { value: string; onText: (text: string) => void; testId?: string }) {
  return <input {...input} className={className} onChange={(e) => onText(e.target.value)} data-testid={testId} />;
}

/** A select's options, one per value, each written by `text` (the value itself unless given). */
export function Options<T extends string>({ values, text = (v) => v }: { values: readonly T[]; text?: (value: T) => ReactNode }) {
  return <RecordOptions items={values} value={(v) => v} text={text} />;
}

/** A select's options, one per record of a list: `value` is the option's value, `text` what it says. */
export function RecordOptions<T>({ items, value, text }: { items: readonly T[]; value: (item: T) => string | number; text: (item: T) => ReactNode }) {
  return items.map((item) => (
    <option key={value(item)} value={value(item)}>
      {text(item)}
    </option>
  ));
}

/** The widths a filter's select may take, as whole class names so Tailwind sees them. */
const FILTER_WIDTHS = { narrow: "max-w-48", medium: "max-w-56", wide: "max-w-64" } as const;

/**
 * A filter bar's select, named by `label` for assistive technology: `empty` is the text of the choice that filters
 * nothing (none without it), and the select is tinted while `highlight` (by default, while a value is chosen).
 */
export function FilterSelect({
  label,
  value,
  onChange,
  options,
  empty,
  highlight = !!value,
  width,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Each choice as [value, text]. */
  options: [string, string][];
  empty?: string;
  highlight?: boolean;
  width: keyof typeof FILTER_WIDTHS;
}) {
  return (
    <select
      aria-label={label}
      className={`field ${FILTER_WIDTHS[width]} ${highlight ? "border-indigo-300 bg-indigo-50/50" : ""}`}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    >
      {empty !== undefined && <option value="">{empty}</option>}
      {options.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </select>
  );
}
