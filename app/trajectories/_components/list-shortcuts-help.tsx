"use client";
import { useRef } from "react";
import { LIST_SHORTCUTS } from "@/server/domain/trajectory-list-keyboard";
import { useDialogFocus } from "../../_lib/use-dialog-focus";

/** The list's keys, in the same dialog style as the player's shortcuts help. */
export function ListShortcutsHelp({ onClose }: { onClose: () => void }) {
  const dialogRef = useRef<HTMLDivElement>(null);
  useDialogFocus(dialogRef);
  return (
    <div className="fixed inset-0 z-50 grid place-items-center bg-zinc-900/40 p-4" onClick={onClose} data-testid="list-shortcuts-help">
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby="list-shortcuts-title"
        className="w-full max-w-md rounded-lg bg-white p-5 shadow-xl outline-none"
        onClick={(e) => e.stopPropagation()}
      >
        <div className="mb-3 flex items-center justify-between">
          <h2 id="list-shortcuts-title" className="text-sm font-semibold text-zinc-900">
            Keyboard shortcuts
          </h2>
          <button type="button" className="btn btn-icon" onClick={onClose} aria-label="Close">
            ✕
          </button>
        </div>
        <table className="w-full text-[12.5px]">
          <tbody>
            {LIST_SHORTCUTS.map((s) => (
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
            <tr>
              <td className="py-1.5 pr-4 whitespace-nowrap">
                <kbd className="kbd">Shift</kbd> + click
              </td>
              <td className="py-1.5 text-zinc-700">Select (or unselect) every row between the last clicked one and this one</td>
            </tr>
          </tbody>
        </table>
        <p className="mt-3 text-2xs text-zinc-500">Keys are ignored while you type in a field. The filters, sort and sample are in the URL, so a link reopens the same view.</p>
      </div>
    </div>
  );
}
