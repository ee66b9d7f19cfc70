"use client";
import { useMutation } from "@tanstack/react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "../../_trpc/client";

type Filter = NonNullable<inferRouterInputs<AppRouter>["campaigns"]["create"]["filter"]>;
type Person = inferRouterOutputs<AppRouter>["accounts"]["directory"][number];

export function NewCampaignForm({ filter, count, people, defaultCategories }: { filter: Filter; count: number; people: Person[]; defaultCategories: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.campaigns.create.mutationOptions());
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(people.filter((p) => p.role === "annotator").map((p) => p.id)));
  const [error, setError] = useState("");

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const categories = String(f.get("categories"))
      .split("\n")
      .map((c) => c.trim())
      .filter(Boolean);
    setError("");
    try {
      const c = await create.mutateAsync({
        name: String(f.get("name")),
        instructions: String(f.get("instructions") ?? ""),
        filter,
        annotatorsPerItem: Number(f.get("k")),
        blind: f.get("blind") === "on",
        reservationMinutes: Number(f.get("reservation")),
        annotatorIds: [...chosen],
        labelSchema: {
          categories,
          requireCategory: f.get("requireCategory") === "on",
          allowUnsure: f.get("allowUnsure") === "on",
          firstFailingStep: f.get("firstFailingStep") === "on",
          note: f.get("note") === "on",
          agreementOn: f.get("agreementOn") === "verdict" ? "verdict" : "verdict_and_category",
        },
      });
      router.push(`/campaigns/${c.id}`);
    } catch (err) {
      setError((err as Error).message);
    }
  }

  const check = (name: string, label: string, hint: string, on = true) => (
    <label className="flex items-start gap-2 text-[12.5px]">
      <input type="checkbox" name={name} defaultChecked={on} className="mt-0.5 accent-indigo-600" />
      <span>
        {label}
        <span className="block text-2xs text-zinc-500">{hint}</span>
      </span>
    </label>
  );

  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-4" data-testid="new-campaign-form">
      <section className="panel flex flex-col gap-3 px-4 py-3">
        <h2 className="section-title">Campaign</h2>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Name
          <input name="name" required maxLength={200} className="field h-8 text-[13px]" placeholder="e.g. WebVoyager GPT-4V, human evaluation" />
        </label>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Guidelines for annotators
          <textarea
            name="instructions"
            rows={3}
            className="rounded-md border border-zinc-300 px-2 py-1 text-[12.5px] font-normal shadow-xs focus:border-indigo-400 focus:outline-none"
            defaultValue="Watch the whole trajectory, every screenshot and action, then decide whether the agent accomplished the task. For a failure, pick the main error category and mark the first step where it went wrong."
          />
        </label>
        <div className="grid grid-cols-2 gap-3">
          <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
            Annotators per trajectory
            <input name="k" type="number" min={1} max={20} defaultValue={3} className="field h-8" />
          </label>
          <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
            Reservation (minutes)
            <input name="reservation" type="number" min={1} max={1440} defaultValue={30} className="field h-8" />
          </label>
        </div>
        {check("blind", "Blind labelling", "Annotators see no judge verdict, rule result or other label of a trajectory until they have submitted theirs (enforced by the server).")}
      </section>

      <section className="panel flex flex-col gap-3 px-4 py-3">
        <h2 className="section-title">Label schema</h2>
        <p className="text-[12px] text-zinc-600">Verdict: success or failure. Failures get an error category from this list (keys 1–9 pick them, in this order).</p>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Error categories, one per line (at most 9)
          <textarea
            name="categories"
            rows={5}
            defaultValue={defaultCategories.join("\n")}
            className="rounded-md border border-zinc-300 px-2 py-1 font-mono text-[12px] font-normal shadow-xs focus:border-indigo-400 focus:outline-none"
          />
        </label>
        <div className="grid gap-2 sm:grid-cols-2">
          {check("requireCategory", "A failure needs a category", "Otherwise the category is optional.")}
          {check("firstFailingStep", "Ask for the first failing step", "Optional for annotators; `f` marks the step on screen.")}
          {check("note", "Free-text note", "Shown to the adjudicator next to the label.")}
          {check("allowUnsure", "Allow “unsure”", "Kept as its own value and left out of κ; unsure items go to adjudication.", false)}
        </div>
        <label className="flex flex-col gap-1 text-[12px] font-medium text-zinc-700">
          Consolidated automatically when the annotators agree on
          <select name="agreementOn" className="field h-8" defaultValue="verdict_and_category">
            <option value="verdict_and_category">the verdict and, for failures, the category</option>
            <option value="verdict">the verdict only (category: majority, if any)</option>
          </select>
        </label>
      </section>

      <section className="panel flex flex-col gap-2 px-4 py-3">
        <h2 className="section-title">Who may annotate ({chosen.size})</h2>
        {people.length === 0 ? (
          <p className="text-[12px] text-zinc-500">No accounts yet besides yours; an admin creates them on the Users page.</p>
        ) : (
          <div className="grid gap-1 sm:grid-cols-2">
            {people.map((p) => (
              <label key={p.id} className="flex items-center gap-2 text-[12.5px]">
                <input
                  type="checkbox"
                  className="accent-indigo-600"
                  checked={chosen.has(p.id)}
                  onChange={(e) =>
                    setChosen((s) => {
                      const n = new Set(s);
                      if (e.target.checked) n.add(p.id);
                      else n.delete(p.id);
                      return n;
                    })
                  }
                />
                {p.name} <span className="text-zinc-500">({p.role})</span>
              </label>
            ))}
          </div>
        )}
      </section>

      {error && (
        <p role="alert" className="text-[12.5px] text-rose-700">
          {error}
        </p>
      )}
      <div className="flex justify-end">
        <button type="submit" className="btn btn-on h-8" disabled={create.isPending || count === 0}>
          Create campaign over {count} trajector{count === 1 ? "y" : "ies"}
        </button>
      </div>
    </form>
  );
}
