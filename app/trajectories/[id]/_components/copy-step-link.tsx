"use client";
import { useCallback, useEffect, useState } from "react";
import { commandForKey } from "@/server/domain/player/keyboard";

/**
 * "Copy link": puts a link to the step on screen on the clipboard (the button, or `l`). The link names the
 * trajectory by its content and row (/t/…, server/domain/trajectories/step-links.ts), so it opens the same step
 * after the run is imported again. Where several are on screen (a column each in the compare view), only the
 * button copies: `keyboard={false}`.
 */
export function CopyStepLink({ path, keyboard = true, title }: { path: string; keyboard?: boolean; title?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const copy = useCallback(async () => {
    const url = new URL(path, window.location.origin).toString();
    try {
      await navigator.clipboard.writeText(url);
      setState("copied");
    } catch {
      // Without clipboard access (an insecure origin, a refused permission) the link is still shown to copy by hand.
      window.prompt("Copy this link to the step:", url);
      setState("failed");
    }
  }, [path]);

  useEffect(() => {
    if (!keyboard) return;
    const onKey = (e: KeyboardEvent) => {
      if (commandForKey(e, e.target as HTMLElement | null) === "copyLink") void copy();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [copy, keyboard]);

  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 2500);
    return () => clearTimeout(t);
  }, [state, path]);

  return (
    <button
      type="button"
      onClick={() => void copy()}
      className="rounded px-1.5 py-0.5 text-zinc-500 ring-1 ring-zinc-200 ring-inset hover:bg-zinc-50 hover:text-zinc-800"
      title={title ?? "Copy a link to this step (l); it keeps working after the run is imported again"}
      data-testid="copy-step-link"
      data-link={path}
    >
      <span aria-live="polite">{state === "copied" ? "Link copied" : "Copy link"}</span>
    </button>
  );
}
