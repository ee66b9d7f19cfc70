"use client";
import { useMutation } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { AppRouter } from "@/server/api/root";
import { formatDate } from "../../_components/ui";
import { useTRPC } from "../../_trpc/client";
import { DenseTable } from "../../_components/table";

type Token = inferRouterOutputs<AppRouter>["accounts"]["apiTokens"]["list"][number];

function tokenState(t: Token, now: number): { text: string; tone: string } {
  if (t.revokedAt) return { text: `revoked ${formatDate(t.revokedAt)}`, tone: "text-zinc-500" };
  if (new Date(t.expiresAt).getTime() <= now) return { text: "expired", tone: "text-zinc-500" };
  return { text: "active", tone: "text-emerald-700" };
}

/** Make, list and revoke one's API tokens; a new token is shown once, here, with a button to copy it. */
export function ApiTokens({ tokens }: { tokens: Token[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.accounts.apiTokens.create.mutationOptions());
  const revoke = useMutation(trpc.accounts.apiTokens.revoke.mutationOptions());
  const [made, setMade] = useState<{ name: string; token: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const now = Date.now();

  async function onCreate(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    setError(null);
    setCopied(false);
    try {
      const r = await create.mutateAsync({
        name: String(f.get("name") ?? ""),
        scope: f.get("scope") === "read-write" ? "read-write" : "read",
        days: Number(f.get("days")),
      });
      setMade({ name: r.listing.name, token: r.token });
      form.reset();
      router.refresh();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  async function onRevoke(t: Token) {
    if (!window.confirm(`Revoke "${t.name}"? Scripts using it stop working at once.`)) return;
    setError(null);
    try {
      await revoke.mutateAsync({ id: t.id });
      router.refresh();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <div className="flex flex-col gap-4 px-6 py-4" data-testid="api-tokens">
      <section className="panel flex flex-col gap-3 p-4">
        <h2 className="text-[13px] font-semibold text-zinc-900">API tokens</h2>
        <p className="max-w-3xl text-[12.5px] text-zinc-600">
          Scripts, notebooks and CI use a token to push results, read trajectories with their verdicts and labels, and post verdicts of their own (
          <code>Authorization: Bearer …</code>, see the API guide in docs/guide/api.md). A token acts as you, with your role; a read token cannot change
          anything.
        </p>
        <form onSubmit={onCreate} className="flex flex-wrap items-end gap-3 text-[12.5px]">
          <label className="flex flex-col gap-1">
            <span className="text-zinc-600">Name</span>
            <input name="name" required maxLength={100} placeholder="nightly CI" className="field w-56" />
          </label>
          <label className="flex flex-col gap-1">
            <span className="text-zinc-600">Scope</span>
            <select name="scope" className="field" defaultValue="read">
              <option value="read">read</option>
              <option value="read-write">read-write</option>
            </select>
          </label>
          <label className="flex flex-col gap-1">
            <span className="text-zinc-600">Expires after (days)</span>
            <input name="days" type="number" min={1} max={366} defaultValue={90} required className="field w-24" />
          </label>
          <button type="submit" className="btn btn-on" disabled={create.isPending}>
            Create token
          </button>
        </form>
        {made && (
          <div role="status" className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-[12.5px] text-emerald-900">
            Token “{made.name}”: copy it now, it is not shown again.
            <div className="mt-1 flex items-center gap-2">
              <code className="font-mono break-all select-all" data-testid="new-token">
                {made.token}
              </code>
              <button
                type="button"
                className="btn"
                onClick={async () => {
                  await navigator.clipboard.writeText(made.token);
                  setCopied(true);
                }}
              >
                {copied ? "Copied" : "Copy"}
              </button>
            </div>
          </div>
        )}
        {error && (
          <div role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-[12.5px] text-rose-800">
            {error}
          </div>
        )}
      </section>
      <section className="panel overflow-x-auto">
        {tokens.length === 0 ? (
          <p className="p-4 text-[12.5px] text-zinc-500">No tokens yet.</p>
        ) : (
          <DenseTable columns={["Name", "Scope", "Created", "Expires", "Last used", "State", ""]} testId="token-list">
            {tokens.map((t) => {
              const state = tokenState(t, now);
              return (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>{t.scope}</td>
                  <td>{formatDate(t.createdAt)}</td>
                  <td>{formatDate(t.expiresAt)}</td>
                  <td>{t.lastUsedAt ? formatDate(t.lastUsedAt) : "never"}</td>
                  <td className={state.tone}>{state.text}</td>
                  <td className="text-right">
                    {state.text === "active" && (
                      <button type="button" className="btn" onClick={() => void onRevoke(t)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </DenseTable>
        )}
      </section>
    </div>
  );
}
