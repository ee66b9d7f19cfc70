"use client";
/**
 * The campaign's guidelines on its page, with an editor. Saving a change starts a new guideline version; labels
 * made from then on record it, so the compliance panel can show which labels were made under older wording.
 */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { GuidelinesText } from "../../../_components/guidelines";
import { useTRPC } from "../../../_trpc/client";
import { sayingProblem } from "../../../_lib/say-problem";

export function GuidelinesEditor({ campaignId, text, version }: { campaignId: number; text: string; version: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const update = useMutation(trpc.campaigns.update.mutationOptions());
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);
  const [error, setError] = useState("");
  return (
    <section className="panel flex flex-col gap-2 px-4 py-3" data-testid="campaign-guidelines">
      <div className="flex items-center justify-between">
        <h2 className="section-title">Guidelines · version {version}</h2>
        {!editing && (
          <button type="button" className="btn" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
      </div>
      {editing ? (
        <>
          <textarea
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            rows={12}
            maxLength={20_000}
            aria-label="Guidelines"
            className="rounded-md border border-zinc-300 px-2 py-1 font-mono text-[12px] shadow-xs focus:border-indigo-400 focus:outline-none"
          />
          <p className="text-2xs text-zinc-500">Saving a change makes version {version + 1}; labels record the version they were made under.</p>
          <div className="flex gap-2">
            <button
              type="button"
              className="btn btn-on"
              disabled={update.isPending}
              onClick={() =>
                sayingProblem(setError, async () => {
                  await update.mutateAsync({ id: campaignId, instructions: draft });
                  setEditing(false);
                  router.refresh();
                })
              }
            >
              Save guidelines
            </button>
            <button type="button" className="btn" onClick={() => (setDraft(text), setEditing(false))}>
              Cancel
            </button>
          </div>
          {error && <p className="text-[12px] text-rose-700">{error}</p>}
        </>
      ) : text ? (
        <GuidelinesText text={text} />
      ) : (
        <p className="text-[12.5px] text-zinc-500">No guidelines yet.</p>
      )}
    </section>
  );
}
