"use client";
/**
 * Comment threads beside the player (docs/guide/comments.md): the threads on the step on screen and on the whole
 * trajectory, the other steps' threads to jump to, a comment box with @mention completion from the people the writer
 * may mention, replies, and resolve / reopen. The filmstrip shows each step's count of open threads.
 *
 * A trajectory is reached by id (researchers, browsing) or, on the labelling page, by the annotator's campaign item:
 * an annotator labelling blind cannot address the trajectory, and the server applies the blind for comments to both.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { hasRole } from "@/server/domain/access/actor";
import { useSignedInUser } from "../../../_components/signed-in-user";
import { memo, useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type ReactNode } from "react";
import type { AppRouter } from "@/server/api/root";
import { completeMention, MAX_COMMENT_CHARS, mentionAtCaret, mentionCandidates } from "@/server/domain/annotation/comments";
import { formatDate } from "../../../_components/ui";
import { GuidelinesText } from "../../../_components/guidelines";
import { useTRPC } from "../../../_trpc/client";

type Thread = inferRouterOutputs<AppRouter>["comments"]["threads"][number];
type Reply = Thread["replies"][number];
/** A comment being written: its text and the way to change it. */
type Draft = [string, (text: string) => void];

/** Whose threads: a trajectory by id, or the annotator's campaign item by number (the labelling page). */
export type CommentsSource = { trajectoryId: number } | { campaignId: number; itemNo: number };

/**
 * The threads of the trajectory and the count of open ones per step (the filmstrip's badges). Fetched with the page,
 * since the badges show whether the panel is open or not.
 */
export function useComments(source: CommentsSource | null) {
  const trpc = useTRPC();
  const item = source && "itemNo" in source ? source : null;
  const trajectoryId = source && "trajectoryId" in source ? source.trajectoryId : 0;
  const byItem = useQuery({
    ...trpc.comments.itemThreads.queryOptions({ campaignId: item?.campaignId ?? 1, itemNo: item?.itemNo ?? 1 }),
    enabled: !!item,
  });
  const byId = useQuery({ ...trpc.comments.threads.queryOptions({ trajectoryId: trajectoryId || 1 }), enabled: trajectoryId > 0 });
  const query = item ? byItem : byId;
  const threads = query.data;
  const openByStep = useMemo(() => {
    const m = new Map<number, number>();
    for (const t of threads ?? []) if (!t.resolvedAt && t.stepIndex !== null) m.set(t.stepIndex, (m.get(t.stepIndex) ?? 0) + 1);
    return m;
  }, [threads]);
  const open = useMemo(() => (threads ?? []).filter((t) => !t.resolvedAt).length, [threads]);
  const status = query.status;
  const error = query.error?.message ?? null;
  const refetch = query.refetch;
  return useMemo(() => ({ source, threads, open, openByStep, status, error, refetch }), [source, threads, open, openByStep, status, error, refetch]);
}

export type CommentsState = ReturnType<typeof useComments>;

/** What the player is told about comments: whose threads, whether `c` opens them, whether they start open. */
export interface CommentsAccess {
  source: CommentsSource;
  key: boolean;
  open?: boolean;
}

/**
 * The player's side of the comments: whether the panel shows (it takes the evaluations' place, so opening one closes
 * the other), the threads, and `open`, the `c` key, which also puts the cursor in the comment box.
 */
export function usePlayerComments(access: CommentsAccess | undefined, evaluationsShown: boolean, setShowEvaluations: (show: boolean) => void) {
  const [show, setShow] = useState(!!access?.open && !evaluationsShown);
  // Opening the evaluations closes the comments.
  useEffect(() => {
    if (evaluationsShown) setShow(false);
  }, [evaluationsShown]);
  const [focus, setFocus] = useState(0);
  // The comment being written outlives the panel: closing it (or opening the evaluations) loses nothing.
  const draft = useState("");
  const state = useComments(access?.source ?? null);
  const user = useSignedInUser();
  useEffect(() => {
    if (focus) document.querySelector<HTMLTextAreaElement>('[data-testid="comment-composer"] textarea')?.focus();
  }, [focus]);
  const open = useCallback(() => {
    setShowEvaluations(false);
    setShow(true);
    setFocus((f) => f + 1);
  }, [setShowEvaluations]);
  const close = useCallback(() => setShow(false), []);
  const toggle = useCallback(() => {
    setShowEvaluations(false);
    setShow((v) => !v);
  }, [setShowEvaluations]);
  const enabled = !!access;
  const key = !!access?.key;
  const canMarkForBlind = !!user && hasRole(user, "researcher");
  return useMemo(
    () => ({ enabled, key, show: enabled && show && !evaluationsShown, state, canMarkForBlind, open, close, toggle, draft }),
    [enabled, key, show, evaluationsShown, state, canMarkForBlind, open, close, toggle, draft],
  );
}

export type PlayerComments = ReturnType<typeof usePlayerComments>;

function useCommentActions(source: CommentsSource) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const item = "itemNo" in source ? source : null;
  const invalidate = () =>
    queryClient.invalidateQueries({
      queryKey: item ? trpc.comments.itemThreads.queryKey({ campaignId: item.campaignId, itemNo: item.itemNo }) : trpc.comments.threads.queryKey(),
    });
  const addById = useMutation(trpc.comments.add.mutationOptions({ onSuccess: invalidate }));
  const addOnItem = useMutation(trpc.comments.addOnItem.mutationOptions({ onSuccess: invalidate }));
  const resolve = useMutation(trpc.comments.setResolved.mutationOptions({ onSuccess: invalidate }));
  return {
    add: (c: { stepIndex?: number | null; replyTo?: number; body: string; forBlind?: boolean }) =>
      item ? addOnItem.mutateAsync({ ...item, ...c }) : addById.mutateAsync({ trajectoryId: (source as { trajectoryId: number }).trajectoryId, ...c }),
    setResolved: (commentId: number, resolved: boolean) => resolve.mutateAsync({ commentId, resolved, item: item ?? undefined }),
  };
}

export const CommentsPanel = memo(function CommentsPanel({
  comments,
  current,
  count,
  go,
}: {
  comments: PlayerComments;
  /** The 0-based step on screen. */
  current: number;
  count: number;
  go: (index: number) => void;
}) {
  const { state, close: onClose, canMarkForBlind, draft } = comments;
  const { threads, status, error, refetch, source } = state;
  const [showResolved, setShowResolved] = useState(false);
  const onStep = (threads ?? []).filter((t) => t.stepIndex === current);
  const whole = (threads ?? []).filter((t) => t.stepIndex === null);
  const elsewhere = (threads ?? []).filter((t) => t.stepIndex !== null && t.stepIndex !== current && !t.resolvedAt);
  const resolvedHere = [...onStep, ...whole].filter((t) => t.resolvedAt).length;
  const shown = (list: Thread[]) => (showResolved ? list : list.filter((t) => !t.resolvedAt));
  if (!source) return null;
  return (
    <section aria-label="Comments" className="flex flex-col gap-3 p-4" data-testid="comments-panel">
      <div className="flex items-center gap-2">
        <h2 className="text-[13px] font-semibold text-zinc-900">Comments</h2>
        <span className="text-[12px] text-zinc-500 tabular-nums" data-testid="comments-open-count">
          {state.open} open
        </span>
        <button type="button" className="btn ml-auto" onClick={onClose} title="Back to the step's details">
          Close
        </button>
      </div>
      <Composer source={source} current={current} count={count} canMarkForBlind={canMarkForBlind} draft={draft} />
      {status === "pending" ? (
        <p className="text-[12px] text-zinc-500" data-testid="comments-loading">
          Loading comments…
        </p>
      ) : status === "error" ? (
        <div className="flex items-center gap-2 text-[12px] text-rose-700" role="alert">
          Could not load the comments: {error}
          <button type="button" className="btn" onClick={() => void refetch()}>
            Retry
          </button>
        </div>
      ) : (
        <>
          <ThreadList
            title={`Step ${current + 1}`}
            threads={shown(onStep)}
            source={source}
            empty={`No open thread on step ${current + 1}.`}
            testId="comments-step"
          />
          <ThreadList
            title="Whole trajectory"
            threads={shown(whole)}
            source={source}
            empty="No open thread on the whole trajectory."
            testId="comments-trajectory"
          />
          {resolvedHere > 0 && (
            <button type="button" className="self-start text-[12px] text-indigo-700 hover:underline" onClick={() => setShowResolved((v) => !v)}>
              {showResolved ? "Hide resolved threads" : `Show ${resolvedHere} resolved thread${resolvedHere === 1 ? "" : "s"}`}
            </button>
          )}
          {elsewhere.length > 0 && (
            <div className="flex flex-col gap-1" data-testid="comments-elsewhere">
              <h3 className="text-2xs font-semibold tracking-wide text-zinc-500 uppercase">Open on other steps</h3>
              <ul className="flex flex-col gap-1">
                {elsewhere.map((t) => (
                  <li key={t.id}>
                    <button
                      type="button"
                      className="flex w-full items-baseline gap-2 rounded px-1.5 py-1 text-left text-[12px] ring-1 ring-zinc-200 hover:bg-zinc-50"
                      onClick={() => go(t.stepIndex!)}
                      data-testid="comments-jump"
                    >
                      <span className="shrink-0 font-medium text-indigo-700">Step {t.stepIndex! + 1}</span>
                      <span className="min-w-0 truncate text-zinc-700">{t.body}</span>
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
    </section>
  );
});

function ThreadList({ title, threads, source, empty, testId }: { title: string; threads: Thread[]; source: CommentsSource; empty: string; testId: string }) {
  return (
    <div className="flex flex-col gap-1.5" data-testid={testId}>
      <h3 className="text-2xs font-semibold tracking-wide text-zinc-500 uppercase">{title}</h3>
      {threads.length === 0 ? (
        <p className="text-[12px] text-zinc-500">{empty}</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {threads.map((t) => (
            <ThreadItem key={t.id} thread={t} source={source} />
          ))}
        </ul>
      )}
    </div>
  );
}

function ThreadItem({ thread, source }: { thread: Thread; source: CommentsSource }) {
  const actions = useCommentActions(source);
  const [replying, setReplying] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const resolved = !!thread.resolvedAt;
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      await actions.setResolved(thread.id, !resolved);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li
      className={`rounded-md p-2 ring-1 ${resolved ? "bg-zinc-50 ring-zinc-200" : "bg-white ring-zinc-300"}`}
      data-testid="comment-thread"
      data-resolved={resolved || undefined}
    >
      <CommentBody comment={thread} />
      {thread.replies.length > 0 && (
        <ul className="mt-2 flex flex-col gap-2 border-l-2 border-zinc-200 pl-2">
          {thread.replies.map((r) => (
            <li key={r.id} data-testid="comment-reply">
              <CommentBody comment={r} />
            </li>
          ))}
        </ul>
      )}
      {resolved && (
        <p className="mt-1 text-2xs text-zinc-500">
          Resolved by {thread.resolvedByName} · {formatDate(thread.resolvedAt)}
        </p>
      )}
      <div className="mt-1.5 flex items-center gap-2">
        {!resolved && (
          <button type="button" className="text-[12px] text-indigo-700 hover:underline" onClick={() => setReplying((v) => !v)}>
            Reply
          </button>
        )}
        <button type="button" className="text-[12px] text-zinc-600 hover:underline disabled:opacity-50" disabled={busy} onClick={() => void toggle()}>
          {resolved ? "Reopen" : "Resolve"}
        </button>
      </div>
      {error && (
        <p className="mt-1 text-[12px] text-rose-700" role="alert">
          {error}
        </p>
      )}
      {replying && <ReplyBox source={source} threadId={thread.id} onDone={() => setReplying(false)} />}
    </li>
  );
}

function CommentBody({ comment }: { comment: Reply }) {
  return (
    <div className="flex flex-col gap-0.5">
      <div className="flex items-baseline gap-2 text-2xs text-zinc-500">
        <span className="font-medium text-zinc-800">{comment.own ? `${comment.authorName} (you)` : comment.authorName}</span>
        <span className="tabular-nums">{formatDate(comment.createdAt)}</span>
        {comment.forBlind && (
          <span className="rounded bg-emerald-50 px-1 text-emerald-700" title="Marked by a researcher as quoting no verdict, label or agent">
            for blind annotators
          </span>
        )}
      </div>
      <div className="text-[12.5px] leading-5 break-words text-zinc-900" data-testid="comment-body">
        <GuidelinesText text={comment.body} />
      </div>
    </div>
  );
}

function ReplyBox({ source, threadId, onDone }: { source: CommentsSource; threadId: number; onDone: () => void }) {
  const actions = useCommentActions(source);
  return (
    <div className="mt-2">
      <CommentBox
        label="Reply"
        autoFocus
        submitLabel="Reply"
        onCancel={onDone}
        onSubmit={async (body) => {
          const r = await actions.add({ replyTo: threadId, body });
          onDone();
          return r;
        }}
      />
    </div>
  );
}

function Composer({
  source,
  current,
  count,
  canMarkForBlind,
  draft,
}: {
  source: CommentsSource;
  current: number;
  count: number;
  canMarkForBlind: boolean;
  draft: Draft;
}) {
  const actions = useCommentActions(source);
  const [where, setWhere] = useState<"step" | "trajectory">(count > 0 ? "step" : "trajectory");
  const [forBlind, setForBlind] = useState(false);
  return (
    <div className="flex flex-col gap-1.5" data-testid="comment-composer">
      <CommentBox
        draft={draft}
        label={where === "step" ? `Comment on step ${current + 1}` : "Comment on the whole trajectory"}
        submitLabel="Comment"
        onSubmit={(body) => actions.add({ stepIndex: where === "step" ? current : null, body, forBlind: canMarkForBlind ? forBlind : undefined })}
        extra={
          <>
            <select
              aria-label="Where the comment goes"
              className="rounded border border-zinc-300 bg-white px-1 py-0.5 text-[12px]"
              value={where}
              onChange={(e) => setWhere(e.target.value as "step" | "trajectory")}
              data-testid="comment-where"
            >
              {count > 0 && <option value="step">Step {current + 1}</option>}
              <option value="trajectory">Whole trajectory</option>
            </select>
            {canMarkForBlind && (
              <label
                className="flex items-center gap-1 text-[12px] text-zinc-600"
                title="It quotes no verdict, label or agent, so annotators still labelling blind may read it"
              >
                <input type="checkbox" checked={forBlind} onChange={(e) => setForBlind(e.target.checked)} />
                For blind annotators
              </label>
            )}
          </>
        }
      />
    </div>
  );
}

/**
 * A comment box: @ opens the list of people to mention (↑/↓ to choose, Enter or Tab to complete, Esc to close it),
 * Ctrl/Cmd+Enter posts. The box is a text field, so no player or labelling key fires while typing in it; its
 * Ctrl/Cmd+Enter is taken here (the label form would otherwise submit the label).
 */
function CommentBox({
  label,
  submitLabel,
  onSubmit,
  onCancel,
  autoFocus,
  extra,
  draft,
}: {
  /** Where the text is kept, when it must outlive the box (the panel's comment box); the box's own state otherwise. */
  draft?: Draft;
  label: string;
  submitLabel: string;
  onSubmit: (body: string) => Promise<{ mentioned: number; unknownMentions: string[] }>;
  onCancel?: () => void;
  autoFocus?: boolean;
  extra?: ReactNode;
}) {
  const trpc = useTRPC();
  const fieldId = useId();
  const { data: people } = useQuery({ ...trpc.comments.mentionable.queryOptions(), staleTime: 60_000 });
  const ref = useRef<HTMLTextAreaElement>(null);
  const own = useState("");
  const [text, setText] = draft ?? own;
  const [caret, setCaret] = useState(0);
  const [choice, setChoice] = useState(0);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const typing = mentionAtCaret(text, caret);
  const candidates = typing && typing.start !== dismissed && people ? mentionCandidates(people, typing.query) : [];
  const listOpen = candidates.length > 0;
  const pick = (handle: string) => {
    if (!typing) return;
    const done = completeMention(text, typing.start, caret, handle);
    setText(done.text);
    setCaret(done.caret);
    requestAnimationFrame(() => ref.current?.setSelectionRange(done.caret, done.caret));
  };
  const submit = async () => {
    if (busy) return;
    if (!text.trim()) {
      setError("A comment needs some text");
      return;
    }
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const r = await onSubmit(text);
      setText("");
      setCaret(0);
      const parts = [];
      if (r.mentioned > 0) parts.push(`${r.mentioned} ${r.mentioned === 1 ? "person" : "people"} mentioned.`);
      if (r.unknownMentions.length) parts.push(`No one here matches ${r.unknownMentions.map((h) => `@${h}`).join(", ")}: nobody was told.`);
      setNote(parts.join(" ") || null);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const onKeyDown = (e: ReactKeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      // Ours, not the label form's (it submits the label on Ctrl/Cmd+Enter from any field).
      e.preventDefault();
      if (!e.repeat) void submit();
      return;
    }
    if (listOpen) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        setChoice((c) => (c + (e.key === "ArrowDown" ? 1 : candidates.length - 1)) % candidates.length);
        return;
      }
      if (e.key === "Enter" || e.key === "Tab") {
        e.preventDefault();
        pick(candidates[Math.min(choice, candidates.length - 1)]!.handle);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setDismissed(typing!.start);
        return;
      }
    }
    if (e.key === "Escape") {
      e.preventDefault();
      if (onCancel) onCancel();
      else ref.current?.blur();
    }
  };
  return (
    <div className="relative flex flex-col gap-1">
      <label htmlFor={fieldId} className="text-[12px] font-medium text-zinc-700">
        {label}
      </label>
      <textarea
        id={fieldId}
        ref={ref}
        rows={3}
        autoFocus={autoFocus}
        value={text}
        maxLength={MAX_COMMENT_CHARS * 2}
        placeholder="Write a comment; @ to mention someone"
        className="w-full resize-y rounded border border-zinc-300 px-2 py-1 text-[12.5px] leading-5 focus:border-indigo-500 focus:outline-none"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${fieldId}-error` : undefined}
        aria-autocomplete="list"
        aria-expanded={listOpen}
        onChange={(e) => {
          setText(e.target.value);
          setCaret(e.target.selectionStart);
          setChoice(0);
          if (error) setError(null);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        onKeyDown={onKeyDown}
        data-testid="comment-box"
      />
      {listOpen && <MentionList people={candidates} choice={choice} onPick={pick} />}
      {error && (
        <p id={`${fieldId}-error`} className="text-[12px] text-rose-700" role="alert">
          {error}
        </p>
      )}
      {note && (
        <p className="text-[12px] text-zinc-600" role="status" data-testid="comment-note">
          {note}
        </p>
      )}
      <div className="flex flex-wrap items-center gap-2">
        {extra}
        <span className="ml-auto flex items-center gap-2">
          {onCancel && (
            <button type="button" className="btn" onClick={onCancel}>
              Cancel
            </button>
          )}
          <button type="button" className="btn btn-on" disabled={busy} onClick={() => void submit()} title="Post (Ctrl/⌘ Enter)" data-testid="comment-submit">
            {busy ? "Posting…" : submitLabel}
          </button>
        </span>
      </div>
    </div>
  );
}

/** The people to mention while an @handle is typed; the chosen one is highlighted (the box's ↑/↓ move it). */
function MentionList({ people, choice, onPick }: { people: { name: string; handle: string }[]; choice: number; onPick: (handle: string) => void }) {
  return (
    <ul
      role="listbox"
      aria-label="People to mention"
      className="z-10 flex flex-col rounded-md border border-zinc-200 bg-white py-1 shadow-lg"
      data-testid="mention-list"
    >
      {people.map((p, i) => (
        <li
          key={p.handle}
          role="option"
          aria-selected={i === choice}
          className={`cursor-pointer px-2 py-1 text-[12px] ${i === choice ? "bg-indigo-50 text-indigo-900" : "text-zinc-700"}`}
          onMouseDown={(e) => {
            e.preventDefault();
            onPick(p.handle);
          }}
        >
          <span className="font-medium">@{p.handle}</span> <span className="text-zinc-500">{p.name}</span>
        </li>
      ))}
    </ul>
  );
}
