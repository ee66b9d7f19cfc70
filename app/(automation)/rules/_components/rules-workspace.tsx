"use client";
/**
 * The Rules page: every automation rule with what it does and how its last run went, a form to write a new one or
 * change one, pause and resume, delete (asked twice), and the chosen rule's run log. Rules run in a worker after
 * each arrival, so the list and the log are read again every few seconds while the page is open.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { RULE_TRIGGER_LABELS } from "@/server/domain/automation/rules";
import { ConfirmButtons, EmptyState, formatDate } from "../../../_components/ui";
import { useTRPC } from "../../../_trpc/client";
import { RuleForm } from "./rule-form";
import { RuleRuns } from "./rule-runs";
import { RULES_REFRESH_MS, type RuleView } from "./rule-view";
import { DenseTable, hidden, right } from "../../../_components/table";

export function RulesWorkspace() {
  const trpc = useTRPC();
  const list = useQuery({ ...trpc.automation.list.queryOptions(), refetchInterval: RULES_REFRESH_MS });
  // null: the form is closed; "new": a new rule; a number: that rule being edited.
  const [editing, setEditing] = useState<number | "new" | null>(null);
  const [shown, setShown] = useState<number | null>(null);
  if (list.error) {
    return (
      <div className="px-6 py-4">
        <p role="alert" className="panel px-4 py-3 text-[12.5px] text-rose-700" data-testid="rules-error">
          The rules could not be read: {list.error.message}
        </p>
      </div>
    );
  }
  if (!list.data) {
    return (
      <p className="px-6 py-4 text-[13px] text-zinc-500" role="status">
        Loading rules…
      </p>
    );
  }
  const rules = list.data;
  const edited = typeof editing === "number" ? rules.find((r) => r.id === editing) : undefined;
  const runsOf = rules.find((r) => r.id === shown);
  return (
    <div className="flex flex-col gap-4 px-6 py-4">
      <div className="flex items-center gap-3">
        <button type="button" className="btn btn-on" onClick={() => setEditing("new")} disabled={editing === "new"} data-testid="new-rule">
          New rule
        </button>
        <p className="text-[12.5px] text-zinc-600">
          A rule looks only at trajectories that arrive after it is saved.{" "}
          <Link className="link" href="/trajectories">
            Build a filter in the trajectory list
          </Link>{" "}
          and paste its address.
        </p>
      </div>
      {editing !== null && (editing === "new" || edited) && (
        <RuleForm
          key={String(editing)}
          initial={edited}
          onDone={(id) => {
            setEditing(null);
            if (id !== null) setShown(id);
          }}
        />
      )}
      {rules.length === 0 ? (
        <EmptyState title="No automation rules yet">
          With a rule, trajectories that arrive (from the Import page, the push API or a live run) and match its filter join a campaign, or a judge batch starts
          on them, without anyone picking them by hand.
        </EmptyState>
      ) : (
        <RuleTable rules={rules} shown={shown} onShow={setShown} onEdit={setEditing} />
      )}
      {runsOf && <RuleRuns rule={runsOf} />}
    </div>
  );
}

function actionText(r: RuleView): string {
  const name = r.target.name ?? `#${r.target.id}`;
  return r.target.kind === "campaign" ? `add to campaign “${name}”` : `judge with “${name}” at k=${r.action.kind === "judge" ? r.action.k : "?"}`;
}

function RuleTable({
  rules,
  shown,
  onShow,
  onEdit,
}: {
  rules: RuleView[];
  shown: number | null;
  onShow: (id: number | null) => void;
  onEdit: (id: number) => void;
}) {
  return (
    <section className="panel overflow-x-auto" aria-label="Rules">
      <DenseTable
        columns={["Rule", "Filter", "When", right("Share"), "Action", "Last run", hidden("Actions", "text-left")]}
        cellClassName="text-left"
        testId="rule-list"
      >
        {rules.map((r) => (
          <tr key={r.id} data-testid="rule-row" data-name={r.name} aria-selected={shown === r.id} className={shown === r.id ? "bg-indigo-50/50" : undefined}>
            <td className="whitespace-nowrap">
              <span className="font-medium">{r.name}</span>
              {!r.enabled && <span className="ml-1.5 rounded-sm bg-zinc-100 px-1 text-[10.5px] text-zinc-600">paused</span>}
              <div className="text-[11px] text-zinc-500">{r.author ? `by ${r.author}` : "author gone"}</div>
            </td>
            <td className="max-w-[22rem] min-w-[14rem] font-mono text-[11.5px] break-all">
              {r.filterText || <span className="font-sans text-zinc-500">every arrival</span>}
            </td>
            <td className="whitespace-nowrap">{r.triggers.map((t) => RULE_TRIGGER_LABELS[t]).join(", ")}</td>
            <td className="text-right tabular-nums">{r.sharePercent}%</td>
            <td>
              {actionText(r)}
              {r.target.problem && (
                <div className="text-[11.5px] text-amber-800" data-testid="rule-problem">
                  {r.target.problem}
                </div>
              )}
            </td>
            <td className="whitespace-nowrap" data-testid="rule-last-run">
              <LastRun run={r.lastRun} />
            </td>
            <td className="whitespace-nowrap">
              <RuleRowActions rule={r} shown={shown === r.id} onShow={onShow} onEdit={onEdit} />
            </td>
          </tr>
        ))}
      </DenseTable>
    </section>
  );
}

function LastRun({ run }: { run: RuleView["lastRun"] }) {
  if (!run) return <span className="text-zinc-400">not run yet</span>;
  const what = run.outcome === "acted" ? `acted on ${run.acted}` : run.outcome === "refused" ? "refused" : "nothing to do";
  return (
    <span title={run.refusal ?? undefined} className={run.outcome === "refused" ? "text-rose-700" : undefined}>
      {what} · {formatDate(run.createdAt)}
    </span>
  );
}

function RuleRowActions({
  rule,
  shown,
  onShow,
  onEdit,
}: {
  rule: RuleView;
  shown: boolean;
  onShow: (id: number | null) => void;
  onEdit: (id: number) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.automation.pathKey() });
  const setEnabled = useMutation(trpc.automation.setEnabled.mutationOptions({ onSettled: refresh }));
  const remove = useMutation(
    trpc.automation.remove.mutationOptions({
      onSuccess: () => {
        if (shown) onShow(null);
      },
      onSettled: refresh,
    }),
  );
  const error = setEnabled.error ?? remove.error;
  if (confirming) {
    return (
      <span className="flex items-center gap-1.5" role="group" aria-label={`Delete ${rule.name}?`}>
        <ConfirmButtons
          question="Delete it and its run log?"
          confirm="Delete"
          onConfirm={() => remove.mutate({ id: rule.id })}
          onKeep={() => setConfirming(false)}
          pending={remove.isPending}
          testId="confirm-delete-rule"
        />
      </span>
    );
  }
  return (
    <span className="flex items-center gap-1.5">
      <button type="button" className="btn" aria-pressed={shown} onClick={() => onShow(shown ? null : rule.id)} data-testid="show-runs">
        Runs
      </button>
      <button type="button" className="btn" onClick={() => onEdit(rule.id)} aria-label={`Edit ${rule.name}`}>
        Edit
      </button>
      <button
        type="button"
        className="btn"
        onClick={() => setEnabled.mutate({ id: rule.id, enabled: !rule.enabled })}
        disabled={setEnabled.isPending}
        data-testid="toggle-rule"
      >
        {rule.enabled ? "Pause" : "Resume"}
      </button>
      <button type="button" className="btn" onClick={() => setConfirming(true)} aria-label={`Delete ${rule.name}`} data-testid="delete-rule">
        Delete
      </button>
      {error && (
        <span role="alert" className="text-rose-700">
          {error.message}
        </span>
      )}
    </span>
  );
}
