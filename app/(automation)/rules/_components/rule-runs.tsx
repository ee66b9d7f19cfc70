"use client";
/**
 * One rule's run log, newest first: each time the rule looked at an arrival, what arrived, what its filter matched,
 * what its share took, what an earlier run had already acted on, what it acted on (with the judge batch it started),
 * or why it was refused.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { RULE_TRIGGER_LABELS } from "@/server/domain/automation/rules";
import { formatDate, ListStates } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { RULES_REFRESH_MS, type RuleView } from "./rule-view";
import { DenseTable, right } from "../../../_components/table";

const OUTCOME_TEXT = { acted: "acted", nothing: "nothing new", refused: "refused" } as const;

export function RuleRuns({ rule }: { rule: RuleView }) {
  const trpc = useTRPC();
  const runs = useQuery({ ...trpc.automation.runs.queryOptions({ id: rule.id }), refetchInterval: RULES_REFRESH_MS });
  return (
    <section className="panel flex flex-col gap-2 px-4 py-3" aria-labelledby="rule-runs-title" data-testid="rule-runs">
      <h2 id="rule-runs-title" className="text-[14px] font-semibold">
        Runs of “{rule.name}”
      </h2>
      <ListStates
        query={runs}
        cannotRead="The runs could not be read"
        loading="Loading runs…"
        empty={
          <p className="text-[12.5px] text-zinc-600" data-testid="rule-runs-empty">
            No runs yet: the rule runs when trajectories arrive through {rule.triggers.map((t) => RULE_TRIGGER_LABELS[t].toLowerCase()).join(" or ")}.
          </p>
        }
      >
        {(rows) => (
          <div className="overflow-x-auto">
            <DenseTable
              columns={["When", "Arrival", right("Arrived"), right("Matched"), right("In the share"), right("Done before"), right("Acted on"), "Outcome"]}
              cellClassName="text-left"
            >
              {rows.map((run) => (
                <tr key={run.id} data-testid="rule-run" data-outcome={run.outcome}>
                  <td className="whitespace-nowrap">{formatDate(run.createdAt)}</td>
                  <td>
                    {run.arrival} <span className="text-zinc-500">({RULE_TRIGGER_LABELS[run.trigger]})</span>
                  </td>
                  <td className="text-right tabular-nums">{run.arrived}</td>
                  <td className="text-right tabular-nums">{run.matched}</td>
                  <td className="text-right tabular-nums">{run.sampled}</td>
                  <td className="text-right tabular-nums">{run.alreadyDone}</td>
                  <td className="text-right tabular-nums" data-testid="rule-run-acted">
                    {run.acted}
                  </td>
                  <td className={run.outcome === "refused" ? "text-rose-700" : undefined}>
                    <span className="flex flex-wrap gap-x-2">
                      <span>
                        {OUTCOME_TEXT[run.outcome]}
                        {run.refusal && <>: {run.refusal}</>}
                      </span>
                      <RunLinks rule={rule} run={run} />
                    </span>
                  </td>
                </tr>
              ))}
            </DenseTable>
          </div>
        )}
      </ListStates>
    </section>
  );
}

function RunLinks({ rule, run }: { rule: RuleView; run: { trajectoryIds: number[]; judgeBatchId: number | null; outcome: string } }) {
  if (run.outcome !== "acted") return null;
  return (
    <span className="inline-flex flex-wrap gap-x-2">
      {run.trajectoryIds.length > 0 && run.trajectoryIds.length <= 500 && (
        <Link className="link" href={`/trajectories?ids=${run.trajectoryIds.join(",")}`}>
          the trajectories
        </Link>
      )}
      {rule.target.kind === "campaign" && (
        <Link className="link" href={`/campaigns/${rule.target.id}`} data-testid="rule-run-campaign">
          the campaign
        </Link>
      )}
      {run.judgeBatchId !== null && (
        <Link className="link" href={`/judges/batches/${run.judgeBatchId}`}>
          the judge batch
        </Link>
      )}
    </span>
  );
}
