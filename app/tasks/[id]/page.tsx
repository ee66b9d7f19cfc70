import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { formatCount, OutcomeBadge, OutcomeBar, PageHeader, WithModelCell } from "../../_components/ui";
import { WebLink } from "../../_components/web-link";
import { api, orNotFound } from "../../_trpc/server";
import { currentUser } from "../../_lib/session";
import { hasRole } from "@/server/domain/access/actor";
import { TaskFlagButton } from "../../trajectories/[id]/_components/task-flag-dialog";
import { DenseTable, right } from "../../_components/table";

export const metadata: Metadata = { title: "Task" };

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const raw = (await params).id;
  if (!/^\d{1,12}$/.test(raw)) notFound();
  const id = Number(raw);
  const overview = await orNotFound((await api()).tasks.byId({ id }));
  const { task, taskSet, outcomes, trajectories } = overview;
  // Withheld, not absent: an annotator labelling one of the task's trajectories blind must not read "none".
  const withheld = "referenceWithheld" in overview && overview.referenceWithheld;
  const user = await currentUser();
  return (
    <>
      <PageHeader
        crumbs={[
          { href: "/task-sets", label: "Task sets" },
          { href: `/task-sets/${taskSet.id}`, label: taskSet.name },
        ]}
        title={<span className="font-mono">{task.externalId}</span>}
        subtitle={task.site ?? undefined}
        actions={user && hasRole(user, "researcher") ? <TaskFlagButton taskId={task.id} /> : undefined}
      />
      <div className="grid gap-4 px-6 py-4 xl:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <section className="panel flex flex-col gap-3 p-4">
          <div>
            <h2 className="section-title mb-1">Intent</h2>
            <p className="break-words whitespace-pre-wrap text-zinc-900">{task.intent}</p>
          </div>
          {task.startUrl && (
            <div>
              <h2 className="section-title mb-1">Start URL</h2>
              <WebLink className="link font-mono text-[12px] break-all" url={task.startUrl} />
            </div>
          )}
          <div>
            <h2 className="section-title mb-1">Reference answers</h2>
            {task.referenceAnswers.length ? (
              <ul className="flex flex-col gap-1">
                {task.referenceAnswers.map((r, i) => (
                  <li key={i} className="flex gap-2">
                    <span className="shrink-0 rounded bg-zinc-100 px-1.5 py-px text-2xs font-medium text-zinc-700">{r.kind.replace(/_/g, " ")}</span>
                    <span className="break-words">{r.text}</span>
                  </li>
                ))}
              </ul>
            ) : withheld ? (
              <p className="text-zinc-500" data-testid="reference-withheld">
                Withheld while you label this task&apos;s trajectories blind.
              </p>
            ) : (
              <p className="text-zinc-400">None recorded.</p>
            )}
          </div>
          {task.inputImages.length > 0 && (
            <div>
              <h2 className="section-title mb-1">Input images</h2>
              <ul className="font-mono text-2xs break-all text-zinc-600">
                {task.inputImages.map((u) => (
                  <li key={u}>{u}</li>
                ))}
              </ul>
            </div>
          )}
          {task.evaluatorConfig != null && (
            <details>
              <summary className="section-title cursor-pointer">Evaluator config (verbatim)</summary>
              <pre className="mt-1 max-h-80 overflow-auto rounded bg-zinc-50 p-2 font-mono text-[11px]">{JSON.stringify(task.evaluatorConfig, null, 2)}</pre>
            </details>
          )}
        </section>
        <section className="flex min-w-0 flex-col gap-3">
          <div className="panel px-3 py-2">
            <div className="mb-1 flex items-baseline gap-2">
              <div className="section-title">
                {formatCount(trajectories.length)} trajector{trajectories.length === 1 ? "y" : "ies"}
              </div>
              {trajectories.length >= 2 && (
                <Link
                  className="link ml-auto text-[12px]"
                  href={`/compare?task=${task.id}`}
                  title={`The first ${Math.min(4, trajectories.length)} attempts side by side, step by step or aligned by URL`}
                  data-testid="compare-attempts"
                >
                  Compare attempts →
                </Link>
              )}
            </div>
            <OutcomeBar counts={outcomes} />
          </div>
          {trajectories.length > 0 && (
            <div className="panel overflow-x-auto">
              <DenseTable columns={["ID", "Run", "Outcome", right("Steps"), "Final answer"]}>
                {trajectories.map((t) => (
                  <tr key={t.id}>
                    <td className="font-mono">
                      <Link className="link" href={`/trajectories/${t.id}`}>
                        {t.id}
                      </Link>
                    </td>
                    <WithModelCell name={t.runName} model={t.model} />
                    <td>
                      <OutcomeBadge outcome={t.outcome} />
                    </td>
                    <td className="text-right tabular-nums">{t.stepCount}</td>
                    <td className="max-w-80">
                      <div className="line-clamp-2 text-zinc-600">{t.finalAnswer ?? "–"}</div>
                    </td>
                  </tr>
                ))}
              </DenseTable>
            </div>
          )}
        </section>
      </div>
    </>
  );
}
