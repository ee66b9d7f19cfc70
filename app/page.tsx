import Link from "next/link";
import { redirect } from "next/navigation";
import { EmptyState, formatCount, formatPercent, OutcomeBar, PageHeader, Stat } from "./_components/ui";
import { requirePageUser } from "./_lib/session";
import { api } from "./_trpc/server";
import { DenseTable, right } from "./_components/table";

export default async function HomePage() {
  await requirePageUser();
  const caller = await api();
  // Runs and models are not for annotators, nor for researchers while they label blind: their home is their queue.
  if (!(await caller.trajectories.browsingScope()).wholeCatalog) redirect("/annotate");
  const [runs, sets] = await Promise.all([caller.runs.list(), caller.taskSets.list()]);
  const trajectories = runs.reduce((a, r) => a + r.trajectoryCount, 0);
  const answered = runs.reduce((a, r) => a + r.answeredCount, 0);
  const tasks = sets.reduce((a, s) => a + s.taskCount, 0);

  if (!trajectories && !tasks) {
    return (
      <>
        <PageHeader title="Verdict" subtitle="Review and grade trajectories of multimodal web agents" />
        <EmptyState title="Nothing imported yet" command={"npm run cli -- import <path>\nnpm run cli -- demo"}>
          Import WebVoyager result folders, VisualWebArena task configs or Verdict trajectory bundles, or record the bundled demo data.
          <div className="mt-3">
            <Link className="btn btn-on" href="/import">
              Import a .zip
            </Link>
          </div>
        </EmptyState>
      </>
    );
  }

  return (
    <>
      <PageHeader title="Overview" subtitle="What has been imported, by run and by task set" />
      <div className="flex flex-col gap-5 px-6 py-4">
        <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
          <Stat label="Trajectories" value={formatCount(trajectories)} />
          <Stat
            label="Answered"
            value={formatPercent(answered, trajectories)}
            hint="Share of trajectories that ended with a final answer (not a success rate)"
          />
          <Stat label="Agent runs" value={formatCount(runs.length)} />
          <Stat label="Tasks" value={formatCount(tasks)} hint={`${sets.length} task set${sets.length === 1 ? "" : "s"}`} />
        </div>
        <NextSteps />
        <section className="panel overflow-x-auto">
          <div className="flex items-center justify-between border-b border-zinc-200 px-3 py-2">
            <h2 className="section-title">Recent runs</h2>
            <Link href="/runs" className="link text-[12px]">
              All runs →
            </Link>
          </div>
          <DenseTable columns={["Run", "Model", right("Trajectories"), { label: "Answered", className: "w-64" }]}>
            {runs.slice(0, 8).map((r) => (
              <tr key={r.id}>
                <td>
                  <Link className="link" href={`/runs/${r.id}`}>
                    {r.name}
                  </Link>
                </td>
                <td className="font-mono text-[12px]">{r.model ?? "–"}</td>
                <td className="text-right tabular-nums">
                  <Link className="link" href={`/trajectories?run=${r.id}`}>
                    {formatCount(r.trajectoryCount)}
                  </Link>
                </td>
                <td>
                  <OutcomeBar counts={{ answered: r.answeredCount, "not answered": r.trajectoryCount - r.answeredCount }} />
                </td>
              </tr>
            ))}
          </DenseTable>
        </section>
      </div>
    </>
  );
}

const NEXT_STEPS = [
  { href: "/import", title: "Import runs", text: "Upload a .zip of an agent's results; the format is recognised." },
  { href: "/campaigns/new", title: "Start a campaign", text: "Have annotators label a selection, blind, k per trajectory." },
  { href: "/judges", title: "Run a judge", text: "Grade trajectories with an LMM judge; a dry run shows the cost first." },
  { href: "/annotate", title: "Label", text: "Your labelling queues, keyboard first." },
  { href: "/analytics", title: "See the figures", text: "Success rates, agreement with humans, error analysis." },
] as const;

/** What a researcher does next, whatever has been done so far: one click to each of the product's main jobs. */
function NextSteps() {
  return (
    <nav aria-label="Next steps" className="grid grid-cols-2 gap-3 md:grid-cols-5" data-testid="next-steps">
      {NEXT_STEPS.map((s) => (
        <Link key={s.href} href={s.href} className="panel block px-3 py-2 hover:border-indigo-300 hover:bg-indigo-50/40">
          <span className="text-[13px] font-semibold text-zinc-900">{s.title} →</span>
          <span className="mt-0.5 block text-[12px] text-zinc-600">{s.text}</span>
        </Link>
      ))}
    </nav>
  );
}
