"use client";
/**
 * A saved failure-cluster run: each cluster's name, size, defining terms, share by site and agent run, and the
 * failures closest to its centre, with what a researcher does next: name it, merge it into another, open its
 * members as a trajectory-list slice or make a labelling campaign of them.
 */
import { useMutation } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { Chip, formatCount, formatPercent } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { memberLinks } from "../../_lib/clusters";

type Run = inferRouterOutputs<AppRouter>["analytics"]["clusterRun"];
type Cluster = Run["clusters"][number];

function Shares({ title, shares, total }: { title: string; shares: { name: string; n: number }[]; total: number }) {
  const shown = shares.slice(0, 4);
  const rest = shares.slice(4).reduce((s, x) => s + x.n, 0);
  return (
    <div className="min-w-0">
      <div className="text-[11px] font-medium text-zinc-500 uppercase">{title}</div>
      <ul className="mt-0.5 flex flex-col gap-0.5">
        {[...shown, ...(rest ? [{ name: `${shares.length - 4} more`, n: rest }] : [])].map((s) => (
          <li key={s.name} className="flex items-center gap-2 text-[12px]" data-share={s.name}>
            <span className="w-28 truncate text-zinc-700" title={s.name}>
              {s.name}
            </span>
            <span className="h-1.5 w-16 overflow-hidden rounded bg-zinc-100" aria-hidden>
              <span className="block h-full bg-indigo-400" style={{ width: `${(s.n / total) * 100}%` }} />
            </span>
            <span className="text-zinc-500 tabular-nums">{s.n}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function ClusterName({ runId, cluster }: { runId: number; cluster: Cluster }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(cluster.name ?? "");
  const rename = useMutation({ ...trpc.analytics.clusterRename.mutationOptions(), onSuccess: () => (setEditing(false), router.refresh()) });
  if (!editing) {
    return (
      <div className="flex min-w-0 items-baseline gap-2">
        <h3 className="truncate text-sm font-semibold text-zinc-900">{cluster.name ?? `Cluster ${cluster.key}`}</h3>
        <button
          type="button"
          className="text-[12px] text-indigo-700 hover:underline"
          onClick={() => setEditing(true)}
          aria-label={`Name cluster ${cluster.key}`}
        >
          {cluster.name ? "Rename" : "Name it"}
        </button>
      </div>
    );
  }
  return (
    <form
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        rename.mutate({ runId, key: cluster.key, name });
      }}
    >
      <input
        className="field w-64"
        aria-label={`Name of cluster ${cluster.key}`}
        value={name}
        maxLength={80}
        autoFocus
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" className="btn btn-on" disabled={rename.isPending}>
        Save
      </button>
      <button type="button" className="btn" onClick={() => setEditing(false)}>
        Cancel
      </button>
      {rename.error && (
        <span role="alert" className="text-[12px] text-rose-700">
          {rename.error.message}
        </span>
      )}
    </form>
  );
}

function MergeControl({ runId, cluster, others }: { runId: number; cluster: Cluster; others: Cluster[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [from, setFrom] = useState("");
  const merge = useMutation({ ...trpc.analytics.clusterMerge.mutationOptions(), onSuccess: () => (setFrom(""), router.refresh()) });
  if (!others.length) return null;
  return (
    <span className="flex items-center gap-1.5">
      <select className="field max-w-48" aria-label={`Merge into cluster ${cluster.key}`} value={from} onChange={(e) => setFrom(e.target.value)}>
        <option value="">Merge another into this…</option>
        {others.map((o) => (
          <option key={o.key} value={o.key}>
            {o.name ?? `Cluster ${o.key}`} ({o.size})
          </option>
        ))}
      </select>
      <button type="button" className="btn" disabled={!from || merge.isPending} onClick={() => merge.mutate({ runId, into: cluster.key, from: Number(from) })}>
        Merge
      </button>
      {merge.error && (
        <span role="alert" className="text-[12px] text-rose-700">
          {merge.error.message}
        </span>
      )}
    </span>
  );
}

function ClusterCard({ run, cluster, total }: { run: Run; cluster: Cluster; total: number }) {
  const links = memberLinks(cluster.members);
  return (
    <article className="panel flex flex-col gap-3 p-4" data-cluster={cluster.key} aria-label={cluster.name ?? `Cluster ${cluster.key}`}>
      <header className="flex flex-wrap items-start justify-between gap-2">
        <ClusterName runId={run.id} cluster={cluster} />
        <span className="text-[12px] text-zinc-600" data-testid="cluster-size">
          {formatCount(cluster.size)} failure{cluster.size === 1 ? "" : "s"} · {formatPercent(cluster.size, total)}
          {cluster.mergedFrom ? ` · merged from ${cluster.mergedFrom.map((k) => `#${k}`).join(", ")}` : ""}
        </span>
      </header>
      <div className="flex flex-wrap gap-1" aria-label="Defining terms">
        {cluster.terms.map((t) => (
          <Chip key={t.term} tone="indigo" title={`weight ${t.weight.toFixed(3)} above the average failure`}>
            {t.term}
          </Chip>
        ))}
      </div>
      <div className="grid grid-cols-2 gap-3">
        <Shares title="By site" shares={cluster.bySite} total={cluster.size} />
        <Shares title="By agent run" shares={cluster.byRun} total={cluster.size} />
      </div>
      <div>
        <div className="text-[11px] font-medium text-zinc-500 uppercase">Closest to its centre</div>
        <ol className="mt-1 flex flex-col gap-1">
          {cluster.examples.map((e) => (
            <li key={e.id} className="flex min-w-0 items-baseline gap-2 text-[12.5px]">
              <Link className="link shrink-0" href={`/trajectories/${e.id}`}>
                #{e.id}
              </Link>
              <span className="min-w-0 truncate text-zinc-700" title={e.intent ?? ""}>
                {e.externalTaskId ? <span className="font-mono text-[11.5px] text-zinc-500">{e.externalTaskId} </span> : null}
                {e.intent}
              </span>
              <span className="ml-auto shrink-0 text-[11.5px] text-zinc-500">{[e.site, e.runName].filter(Boolean).join(" · ")}</span>
            </li>
          ))}
        </ol>
      </div>
      <footer className="flex flex-wrap items-center gap-2 border-t border-zinc-100 pt-3">
        {links ? (
          <>
            <Link className="btn" href={links.list}>
              Open as list
            </Link>
            <Link className="btn" href={links.campaign}>
              New campaign from it
            </Link>
          </>
        ) : (
          <span className="text-[12px] text-amber-700">Too many members for one link; narrow the slice or raise k.</span>
        )}
        <MergeControl runId={run.id} cluster={cluster} others={run.clusters.filter((c) => c.key !== cluster.key)} />
      </footer>
    </article>
  );
}

export function ClusterRunView({ run }: { run: Run }) {
  const total = run.clusters.reduce((s, c) => s + c.size, 0);
  return (
    <div className="grid gap-4 xl:grid-cols-2" data-testid="cluster-run">
      {run.clusters.map((c) => (
        <ClusterCard key={c.key} run={run} cluster={c} total={total} />
      ))}
    </div>
  );
}
