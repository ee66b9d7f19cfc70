"use client";
/**
 * The inbox of mentions (docs/guide/comments.md): the top bar's "Mentions" link with the count of unread ones, and
 * the list on the account page, unread first. Each entry opens its step with the comments showing, and is marked
 * read when followed (or all at once with "Mark all read"). The server lists only mentions the person may read now.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { formatDate } from "./ui";
import { useTRPC } from "../_trpc/client";

/** Read again every minute and when the window regains focus, so a new mention shows without a reload. */
const INBOX_REFRESH_MS = 60_000;

function useInbox() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.comments.inbox.queryOptions(), refetchInterval: INBOX_REFRESH_MS });
}

function useMarkRead() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(trpc.comments.markRead.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.comments.inbox.queryKey() }) }));
}

/** The link opens the step with the comments panel showing. */
function withCommentsPanel(link: string): string {
  return `${link}${link.includes("?") ? "&" : "?"}panel=comments`;
}

export function MentionsLink() {
  const inbox = useInbox();
  const unread = inbox.data?.unread ?? 0;
  return (
    <Link
      href="/account#mentions"
      className="flex items-center gap-1 rounded-md px-1.5 py-0.5 text-[12px] text-zinc-600 hover:bg-zinc-50 hover:text-zinc-900"
      title={unread ? `${unread} unread mention${unread === 1 ? "" : "s"}` : "Mentions: comments that name you"}
      data-testid="mentions-link"
    >
      <span aria-hidden>@</span>
      {/* The word only where the top bar has room for it beside every section a researcher or admin has. */}
      <span className="hidden 2xl:inline">Mentions</span>
      {unread > 0 && (
        <span className="rounded-full bg-sky-600 px-1.5 text-2xs leading-4 font-semibold text-white tabular-nums" data-testid="mentions-unread">
          {unread}
        </span>
      )}
    </Link>
  );
}

export function MentionsInbox() {
  const inbox = useInbox();
  const markRead = useMarkRead();
  const unreadIds = inbox.data?.entries.filter((e) => !e.read).map((e) => e.commentId) ?? [];
  return (
    <section id="mentions" className="panel mx-6 my-4 flex flex-col gap-2 px-4 py-3" aria-labelledby="mentions-title" data-testid="mentions-inbox">
      <div className="flex items-center gap-2">
        <h2 id="mentions-title" className="text-[14px] font-semibold">
          Mentions
        </h2>
        {inbox.data && <span className="text-[12px] text-zinc-500 tabular-nums">{inbox.data.unread} unread</span>}
        {unreadIds.length > 0 && (
          <button type="button" className="btn ml-auto" disabled={markRead.isPending} onClick={() => markRead.mutate({ commentIds: unreadIds })}>
            Mark all read
          </button>
        )}
      </div>
      <p className="text-[12.5px] text-zinc-600">
        Comments that name you with <code>@</code> and your handle (the part of your email before the @). Each opens its step with the comments showing.
      </p>
      {inbox.error ? (
        <p role="alert" className="text-[12.5px] text-rose-700">
          Could not load your mentions: {inbox.error.message}{" "}
          <button type="button" className="btn" onClick={() => void inbox.refetch()}>
            Retry
          </button>
        </p>
      ) : !inbox.data ? (
        <p className="text-[12.5px] text-zinc-500">Loading your mentions…</p>
      ) : inbox.data.entries.length === 0 ? (
        <p className="text-[12.5px] text-zinc-500" data-testid="mentions-empty">
          Nobody has mentioned you yet. When someone writes @ and your handle in a comment, it shows here.
        </p>
      ) : (
        <ul className="flex flex-col divide-y divide-zinc-100">
          {inbox.data.entries.map((e) => (
            <li key={e.commentId} className="flex items-baseline gap-3 py-1.5 text-[12.5px]" data-testid="mention" data-read={e.read || undefined}>
              <span aria-hidden className={`size-1.5 shrink-0 rounded-full ${e.read ? "bg-transparent" : "bg-sky-600"}`} />
              <span className="w-32 shrink-0 truncate font-medium text-zinc-800">{e.authorName}</span>
              <Link
                href={withCommentsPanel(e.link)}
                className="min-w-0 flex-1 truncate text-zinc-700 hover:text-indigo-700 hover:underline"
                onClick={() => {
                  if (!e.read) markRead.mutate({ commentIds: [e.commentId] });
                }}
                data-testid="mention-link"
              >
                {e.stepIndex === null ? "Trajectory" : `Step ${e.stepIndex + 1}`}: {e.excerpt}
              </Link>
              <span className="shrink-0 text-zinc-500 tabular-nums">{formatDate(e.createdAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
