"use client";
/**
 * The keyboard shortcuts dialog shared by the player, the trajectory list and the side-by-side page: one look,
 * one focus behaviour (the dialog takes focus, Tab stays inside, Esc and a click outside close it), each page
 * passing its own list of keys.
 */
import { useRef, type ReactNode } from "react";
import { useDialogFocus } from "../_lib/use-dialog-focus";

export interface ShortcutRow {
  /** Keys that do the same thing, shown side by side ("←" / "k"). */
  keys: string[];
  description: string;
}

export function ShortcutsHelp({
  shortcuts,
  extra,
  footnote,
  testId = "shortcuts-help",
  onClose,
}: {
  shortcuts: readonly ShortcutRow[];
  /** Rows that are not a plain key (Shift + click), after the keys. */
  extra?: ReactNode;
  /** One line under the table: when keys are ignored, what the URL keeps. */
  footnote: string;
  testId?: string;
  onClose: () => void;
}) {
  const dialogRef = useRef<HTMLDivElement>(null);
  useDialogFocus(dialogRef);
  const titleId = `${testId}-title`;
  return (
    <div className="fixed inset-0 z-50 grid place-items-center bg-zinc-900/40 p-4" onClick={onClose} data-testid={testId}>
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className="max-h-[92vh] w-full max-w-md overflow-y-auto rounded-lg bg-white p-5 shadow-xl outline-none"
        onClick={(e) => e.stopPropagation()}
      >
        <div className="mb-3 flex items-center justify-between">
          <h2 id={titleId} className="text-sm font-semibold text-zinc-900">
            Keyboard shortcuts
          </h2>
          <button type="button" className="btn btn-icon" onClick={onClose} aria-label="Close">
            ✕
          </button>
        </div>
        <table className="w-full text-[12.5px]">
          <tbody>
            {shortcuts.map((s) => (
              <tr key={s.description} className="border-b border-zinc-100 last:border-0">
                <td className="py-1.5 pr-4 whitespace-nowrap">
                  {s.keys.map((k, i) => (
                    <span key={k}>
                      {i > 0 && <span className="mx-1 text-zinc-400">/</span>}
                      <kbd className="kbd">{k}</kbd>
                    </span>
                  ))}
                </td>
                <td className="py-1.5 text-zinc-700">{s.description}</td>
              </tr>
            ))}
            {extra}
          </tbody>
        </table>
        <p className="mt-3 text-2xs text-zinc-500">{footnote}</p>
      </div>
    </div>
  );
}
