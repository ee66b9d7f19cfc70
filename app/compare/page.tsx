import type { Metadata } from "next";
import { TRPCError } from "@trpc/server";
import Link from "next/link";
import { redirect } from "next/navigation";
import { ErrorPanel } from "../_components/ui";
import { api, getQueryClient, HydrateClient, trpc } from "../_trpc/server";
import { CompareView } from "./_components/compare-view";
import { attemptsToCompare, compareHref, differentTasksProblem, MIN_COMPARED, parseCompareIds } from "./_lib/compare-ids";
import type { SyncMode } from "./_lib/alignment";

export const metadata: Metadata = { title: "Side by side" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function positiveId(raw: string | undefined): number | null {
  return raw && /^\d{1,12}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/** A trajectory the viewer cannot open, in words: unknown, or the server's reason (outside their campaigns, labelled blind). */
function whyNot(id: number, e: unknown): string {
  if (e instanceof TRPCError && e.code === "NOT_FOUND") return `No trajectory has id ${id}.`;
  // The refusal names no trajectory (one answer for every id someone may not open); the link's own id is added here.
  if (e instanceof TRPCError && e.code === "FORBIDDEN") return `Trajectory ${id}: ${e.message}`;
  throw e;
}

/**
 * Side by side: two to four attempts at one task in synchronised columns (see _components/compare-view.tsx).
 * Every trajectory is fetched here with the player's own procedure, so the same access and blind rules apply and a
 * wrong link says, per trajectory, what is wrong with it. `?of=ID` (from a disagreement) and `?task=ID` (from a
 * task page) open a task's attempts.
 */
export default async function ComparePage({ searchParams }: Props) {
  const sp = await searchParams;
  const of = first(sp.of);
  const task = first(sp.task);
  if (of !== undefined || task !== undefined) {
    const result = await attemptsOf(of, task);
    if (typeof result === "string") return <CompareProblem problems={[result]} />;
    redirect(compareHref(result));
  }

  const parsed = parseCompareIds(sp.ids);
  if (!parsed.ok) return <CompareProblem problems={[parsed.problem]} />;
  const { ids } = parsed;
  const queryClient = getQueryClient();
  const settled = await Promise.allSettled(ids.map((id) => queryClient.fetchQuery(trpc.trajectories.byId.queryOptions({ id }))));
  const problems = settled.flatMap((r, i) => (r.status === "rejected" ? [whyNot(ids[i]!, r.reason)] : []));
  if (problems.length) return <CompareProblem problems={problems} />;
  const loaded = settled.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const mixed = differentTasksProblem(loaded.map((d) => ({ id: d.trajectory.id, taskId: d.task.id, taskName: d.task.externalId })));
  if (mixed) {
    const tasks = new Map(loaded.map((d) => [d.task.id, d.task.externalId]));
    return <CompareProblem problems={[mixed]} tasks={[...tasks].map(([id, name]) => ({ id, name }))} />;
  }

  const mode: SyncMode = first(sp.mode) === "url" ? "url" : "step";
  const row = Number(first(sp.row));
  return (
    <HydrateClient>
      <CompareView ids={ids} initialMode={mode} initialRow={Number.isInteger(row) && row > 0 ? row - 1 : 0} />
    </HydrateClient>
  );
}

/** The trajectories a "Compare attempts" link means, or why there are none to compare. */
async function attemptsOf(of: string | undefined, task: string | undefined): Promise<number[] | string> {
  const caller = await api();
  let start: number | undefined;
  let taskId: number;
  if (of !== undefined) {
    const id = positiveId(of);
    if (id === null) return `"of": "${of}" is not a trajectory id (a whole number above 0).`;
    try {
      taskId = (await caller.trajectories.byId({ id })).task.id;
    } catch (e) {
      return whyNot(id, e);
    }
    start = id;
  } else {
    const id = positiveId(task);
    if (id === null) return `"task": "${task}" is not a task id (a whole number above 0).`;
    taskId = id;
  }
  let overview;
  try {
    overview = await caller.tasks.byId({ id: taskId });
  } catch (e) {
    if (e instanceof TRPCError && e.code === "NOT_FOUND") return `No task has id ${taskId}.`;
    if (e instanceof TRPCError && e.code === "FORBIDDEN") return e.message;
    throw e;
  }
  const ids = attemptsToCompare(
    overview.trajectories.map((t) => t.id),
    start,
  );
  if (ids.length < MIN_COMPARED) {
    return `Task ${overview.task.externalId} has ${ids.length === 0 ? "no trajectory" : "only one trajectory"} you can open: side by side needs ${MIN_COMPARED} attempts at it.`;
  }
  return ids;
}

function CompareProblem({ problems, tasks = [] }: { problems: string[]; tasks?: { id: number; name: string }[] }) {
  return (
    <div data-testid="compare-problem">
      <ErrorPanel title="Cannot show these side by side" message={problems.join("\n")}>
        <div className="flex flex-wrap gap-2">
          <Link href="/trajectories" className="btn">
            ← Trajectories
          </Link>
          {tasks.map((t) => (
            <Link key={t.id} href={`/compare?task=${t.id}`} className="btn">
              Compare the attempts at {t.name}
            </Link>
          ))}
        </div>
      </ErrorPanel>
    </div>
  );
}
