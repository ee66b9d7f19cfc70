/**
 * Parts of the queues researchers and QA reviewers work through (adjudication, QA review): the task cell, the
 * labels in brief, and the pages with the count below. Server-renderable: no hooks.
 */
import type { ReactNode } from "react";
import { formatCount, Pagination } from "../../_components/ui";

const VERDICT_STYLE: Record<string, string> = {
  success: "bg-emerald-50 text-emerald-800",
  failure: "bg-rose-50 text-rose-800",
  unsure: "bg-amber-50 text-amber-800",
  not_executable: "bg-sky-50 text-sky-800",
};

/** The task's id (and `after` it, say the trajectory's number) over its intent, cut to one line. */
export function TaskCell({ externalTaskId, intent, after }: { externalTaskId: string; intent: string; after?: ReactNode }) {
  return (
    <td className="max-w-96">
      <div className="font-mono text-[12px]">
        {externalTaskId}
        {after}
      </div>
      <div className="truncate text-zinc-500" title={intent}>
        {intent}
      </div>
    </td>
  );
}

/** Each label's verdict (and category) as a chip named by its annotator. */
export function LabelChips({ labels }: { labels: { verdict: string; category: string | null; annotatorName: string }[] }) {
  return (
    <div className="flex flex-wrap gap-1">
      {labels.map((l, i) => (
        <span key={i} className={`rounded px-1.5 py-px text-2xs font-medium ${VERDICT_STYLE[l.verdict] ?? ""}`} title={l.annotatorName}>
          {l.verdict}
          {l.category ? ` · ${l.category}` : ""}
        </span>
      ))}
    </div>
  );
}

/** The queue's pages when it holds more than one, and how many items it holds. */
export function QueueFooter({ queue, page, href }: { queue: { total: number; pageSize: number }; page: number; href: (page: number) => string }) {
  return (
    <>
      {queue.total > queue.pageSize && (
        <Pagination page={page} pageCount={Math.ceil(queue.total / queue.pageSize)} total={queue.total} pageSize={queue.pageSize} href={href} />
      )}
      <p className="text-2xs text-zinc-500">
        {formatCount(queue.total)} item{queue.total === 1 ? "" : "s"}
      </p>
    </>
  );
}
