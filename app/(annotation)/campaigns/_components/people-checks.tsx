/**
 * A checkbox per account, two columns from small screens up: who labels a campaign (the new-campaign form and the
 * campaign page's annotator list) and who reviews it. `label` prefixes each box's accessible name (the QA list,
 * whose names repeat the first list's); `withRole` shows each account's role after its name.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

export type Person = inferRouterOutputs<AppRouter>["accounts"]["directory"][number];

export function PeopleChecks({
  people,
  isChosen,
  onToggle,
  disabled = false,
  withRole = false,
  label,
}: {
  people: Person[];
  isChosen: (id: string) => boolean;
  onToggle: (id: string, chosen: boolean) => void;
  disabled?: boolean;
  withRole?: boolean;
  label?: string;
}) {
  return (
    <div className="grid gap-1 sm:grid-cols-2">
      {people.map((p) => (
        <label key={p.id} className="flex items-center gap-2 text-[12.5px]">
          <input
            type="checkbox"
            className="accent-indigo-600"
            aria-label={label ? `${label} ${p.name}` : undefined}
            checked={isChosen(p.id)}
            disabled={disabled}
            onChange={(e) => onToggle(p.id, e.target.checked)}
          />
          {p.name} {withRole && <span className="text-zinc-500">({p.role})</span>}
        </label>
      ))}
    </div>
  );
}
