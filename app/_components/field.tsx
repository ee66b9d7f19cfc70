/**
 * A form field: its visible label (which names the control `htmlFor` points at), the control, then what is wrong
 * with it in words when something is (`problem`, announced and beside the field) or else its hint. The judge
 * forms, the judge configuration and the live-run form use it.
 */
import type { ReactNode } from "react";

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
