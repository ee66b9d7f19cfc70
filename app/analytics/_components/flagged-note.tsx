"use client";
/**
 * The one toggle for the task validity ledger on every analytics view: trajectories of flagged tasks (broken,
 * outdated, ambiguous, wrong reference) are left out of every figure by default, and this line says how many, lets
 * the researcher count them again (`flagged=include` in the URL, so the choice travels with a shared link), and
 * offers the ledger as a download. Shown once any task in scope is flagged.
 */
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useOptimistic, useTransition } from "react";
import { FLAGGED_PARAM } from "../_lib/search";

export interface FlaggedCount {
  tasks: number;
  trajectories: number;
  included: boolean;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

export function FlaggedNote({ flagged, unit = "trajectories" }: { flagged: FlaggedCount; unit?: "trajectories" | "items" }) {
  const router = useRouter();
  const pathname = usePathname();
  const sp = useSearchParams();
  const [pending, startTransition] = useTransition();
  // The box answers the click at once; the figures follow when the page has loaded with the new choice.
  const [included, setIncluded] = useOptimistic(flagged.included);
  if (flagged.tasks === 0) return null;
  const toggle = (leaveOut: boolean) => {
    const next = new URLSearchParams(sp.toString());
    if (leaveOut) next.delete(FLAGGED_PARAM);
    else next.set(FLAGGED_PARAM, "include");
    const q = next.toString();
    startTransition(() => {
      setIncluded(!leaveOut);
      router.push(`${pathname}${q ? `?${q}` : ""}`);
    });
  };
  const what = `${plural(flagged.trajectories, unit === "items" ? "item" : "trajectory", unit === "items" ? "items" : "trajectories")} of ${plural(flagged.tasks, "flagged task", "flagged tasks")}`;
  return (
    <div
      className={`flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border px-3 py-1.5 text-[12px] ${flagged.included ? "border-zinc-200 bg-zinc-50 text-zinc-700" : "border-amber-200 bg-amber-50 text-amber-900"}`}
      data-testid="flagged-note"
      data-included={flagged.included ? "yes" : "no"}
    >
      <label className="flex items-center gap-1.5 font-medium">
        <input type="checkbox" checked={!included} disabled={pending} onChange={(e) => toggle(e.target.checked)} data-testid="flagged-toggle" />
        Leave out flagged tasks
      </label>
      <span data-testid="flagged-count">
        {flagged.included ? `Counted in every figure below: ${what}.` : `Left out of every figure below: ${what} (task validity ledger).`}
      </span>
      <span className="ml-auto text-2xs text-zinc-500">
        Ledger:{" "}
        <a className="link" href="/api/task-validity?format=csv" download>
          CSV
        </a>{" "}
        ·{" "}
        <a className="link" href="/api/task-validity?format=json" download>
          JSON
        </a>
      </span>
    </div>
  );
}
