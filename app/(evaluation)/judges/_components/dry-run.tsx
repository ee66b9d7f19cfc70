"use client";
/**
 * The parts the judge forms that call a model share (a judge batch, a stress test, an alignment run): the
 * concurrency field, the seed of a seeded draw, the "Dry run and start" step with what the dry run found, and the Start button that says how
 * many calls it will make. A dry run's result always belongs to the form as it is; changing anything asks for a new one.
 */
import { useState, type ReactNode } from "react";
import { formatCount, PanelSection } from "../../../_components/ui";
import { Field, TextInput } from "../../../_components/field";
import { errorText } from "../_lib/error-text";

/**
 * Which form a dry run is of: `ask()` (the Dry run button) asks for the form as it is, `input` (none while the form
 * has a problem); `asked` holds only while the form is still the one asked about, so the figures shown always belong
 * to it and any change asks for a new dry run; `forget()` once what it was for has started.
 */
export function useDryRunFor(input: unknown) {
  const [askedFor, setAskedFor] = useState<string | null>(null);
  const key = input === null ? null : JSON.stringify(input);
  return { asked: key !== null && askedFor === key, ask: () => setAskedFor(key), forget: () => setAskedFor(null) };
}

/** Calls in flight at once, 1–64 (the forms check it with `wholeIn`, server/domain's limits). */
export function ConcurrencyField({ id, value, onChange }: { id: string; value: string; onChange: (text: string) => void }) {
  return (
    <Field label="Concurrency" htmlFor={id} hint="Calls in flight at once (1–64)">
      <input id={id} className="field" inputMode="numeric" value={value} onChange={(ev) => onChange(ev.target.value)} />
    </Field>
  );
}

/** The seed of a seeded draw (a study's split, a stress test's screenshots): `hint` says what the same seed keeps the same. */
export function SeedField({ id, value, onText, hint, testId }: { id: string; value: string; onText: (text: string) => void; hint: string; testId?: string }) {
  return (
    <Field label="Seed" htmlFor={id} hint={hint}>
      <TextInput id={id} inputMode="numeric" value={value} testId={testId} onText={onText} />
    </Field>
  );
}

/** "Start 12 calls" once a dry run said how many; refused (with the reason as its title) until then. */
export function StartButton({
  calls,
  pending,
  disabled,
  title,
  testId,
  onStart,
}: {
  /** The dry run's count of calls; undefined before a dry run. */
  calls: number | undefined;
  pending: boolean;
  disabled: boolean;
  title: string | undefined;
  testId: string;
  onStart: () => void;
}) {
  return (
    <button type="button" className="btn btn-on" data-testid={testId} disabled={disabled || pending} title={title} onClick={onStart}>
      {pending ? "Starting…" : calls !== undefined ? `Start ${formatCount(calls)} call${calls === 1 ? "" : "s"}` : "Start"}
    </button>
  );
}

/**
 * The form's last step: what keeps it from a dry run, or that none has run for the form as it is, or the dry run's
 * error or result; then Dry run (the form's submit) and Start, with the start's error beside them.
 */
export function DryRunSection({
  testIds,
  problem,
  idleText,
  asked,
  dryRunError,
  result,
  start,
}: {
  testIds: { estimate: string; dryRun: string };
  /** What keeps the form from a dry run, or null. */
  problem: string | null;
  /** Said before a dry run of the form as it is. */
  idleText: string;
  /** Whether the dry run shown (or under way) is of the form as it is. */
  asked: boolean;
  dryRunError: unknown;
  /** The dry run's figures; undefined while it runs. */
  result: ReactNode | undefined;
  start: { button: ReactNode; error: unknown };
}) {
  return (
    <PanelSection title="3 · Dry run and start" label="Dry run and start">
      <div className="rounded-md bg-zinc-50 px-3 py-2 text-[13px]" data-testid={testIds.estimate} aria-live="polite">
        {problem ? (
          <span className="text-rose-700">{problem}</span>
        ) : !asked ? (
          <span className="text-zinc-500">{idleText}</span>
        ) : dryRunError ? (
          <span className="text-rose-700" role="alert">
            {errorText(dryRunError)}
          </span>
        ) : result === undefined ? (
          <span className="text-zinc-500">Estimating…</span>
        ) : (
          result
        )}
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" className="btn" disabled={problem !== null} data-testid={testIds.dryRun}>
          Dry run
        </button>
        {start.button}
        {!!start.error && (
          <span className="text-[12px] text-rose-700" role="alert">
            {errorText(start.error)}
          </span>
        )}
      </div>
    </PanelSection>
  );
}
