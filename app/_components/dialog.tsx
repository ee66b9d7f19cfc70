"use client";
/**
 * A modal dialog: opened as it mounts, a title with "Close ✕" beside it, Escape closes it (the caller unmounts it in
 * `onClose`), and keys typed inside stay inside (the player's and pages' shortcuts listen on the window). With
 * `onSubmit` the body is a form, so Enter in a field submits it.
 */
import { useEffect, useId, useRef, type ReactNode } from "react";

/** Widths as whole class names, so Tailwind sees them. */
const WIDTHS = {
  md: "w-[min(36rem,calc(100vw-2rem))]",
  lg: "w-[min(40rem,calc(100vw-2rem))]",
  xl: "w-[min(44rem,calc(100vw-2rem))]",
} as const;

export function Dialog({
  title,
  width,
  testId,
  onClose,
  onSubmit,
  bodyClassName,
  children,
}: {
  title: ReactNode;
  width: keyof typeof WIDTHS;
  testId: string;
  onClose: () => void;
  onSubmit?: () => void;
  /** Added to the body's own `flex flex-col gap-3 p-4`. */
  bodyClassName?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const body = `flex flex-col gap-3 p-4${bodyClassName ? ` ${bodyClassName}` : ""}`;
  const content = (
    <>
      <div className="flex items-baseline justify-between gap-3">
        <h2 id={titleId} className="text-[14px] font-semibold text-zinc-900">
          {title}
        </h2>
        <button type="button" className="text-2xs text-zinc-500 hover:text-zinc-800" onClick={onClose}>
          Close ✕
        </button>
      </div>
      {children}
    </>
  );
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      className={`m-auto ${WIDTHS[width]} rounded-lg border border-zinc-200 bg-white p-0 shadow-xl backdrop:bg-zinc-900/30`}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onKeyDown={(e) => e.stopPropagation()}
    >
      {onSubmit ? (
        <form
          className={body}
          onSubmit={(e) => {
            e.preventDefault();
            onSubmit();
          }}
        >
          {content}
        </form>
      ) : (
        <div className={body}>{content}</div>
      )}
    </dialog>
  );
}
