"use client";
/**
 * The controls every view that steps through trajectories draws the same way: the player's toolbar and the
 * side-by-side page's controls both use these (stepping buttons with their counter, on/off toggles, the `?` button).
 * Buttons act on click without taking focus, so Space and the arrow keys keep meaning what the key map says after a
 * mouse click.
 */
import type { ReactNode } from "react";

/** Keeps focus where it was when a control is clicked (see the module comment). */
export function noFocus(e: React.MouseEvent) {
  e.preventDefault();
}

/** The stepping commands the buttons send, named as in the key maps (server/domain/player/keyboard.ts). */
export type StepNavCommand = "first" | "prev" | "next" | "last";

/**
 * First, previous, the counter, next, last. `counter` is what sits between the arrows ("Step 3 of 9", "Row 3 of
 * 12"), announced when it changes.
 */
export function StepNav({
  current,
  count,
  counter,
  counterTestId,
  onStep,
}: {
  current: number;
  count: number;
  counter: ReactNode;
  counterTestId: string;
  onStep: (command: StepNavCommand) => void;
}) {
  const atStart = current === 0;
  const atEnd = current >= count - 1;
  return (
    <>
      <NavButton icon="first" label="First step" keys="Home" disabled={atStart} onClick={() => onStep("first")} />
      <NavButton icon="prev" label="Previous step" keys="← or k" disabled={atStart} onClick={() => onStep("prev")} />
      <span className="min-w-[92px] text-center text-[12px] text-zinc-700 tabular-nums" data-testid={counterTestId} aria-live="polite">
        {counter}
      </span>
      <NavButton icon="next" label="Next step" keys="→ or j" disabled={atEnd} onClick={() => onStep("next")} />
      <NavButton icon="last" label="Last step" keys="End" disabled={atEnd} onClick={() => onStep("last")} />
    </>
  );
}

function NavButton({ icon, label, keys, disabled, onClick }: { icon: IconName; label: string; keys: string; disabled: boolean; onClick: () => void }) {
  return (
    <button type="button" className="btn btn-icon" onMouseDown={noFocus} onClick={onClick} disabled={disabled} title={`${label} (${keys})`} aria-label={label}>
      <Icon name={icon} />
    </button>
  );
}

/** A switch for something drawn or shown (Set-of-Marks, the action, a panel): a dot says whether it is on. */
export function Toggle({
  on,
  onClick,
  title,
  children,
  disabled,
  testId,
}: {
  on: boolean;
  onClick: () => void;
  title: string;
  children: ReactNode;
  disabled?: boolean;
  testId: string;
}) {
  return (
    <button
      type="button"
      className={`btn ${on ? "btn-on" : ""}`}
      aria-pressed={on}
      onMouseDown={noFocus}
      onClick={onClick}
      title={title}
      disabled={disabled}
      data-testid={testId}
    >
      <span aria-hidden className={`size-1.5 rounded-full ${on ? "bg-indigo-500" : "bg-zinc-300"}`} />
      {children}
    </button>
  );
}

/** The `?` button that opens the keyboard shortcuts. */
export function HelpButton({ onClick, className = "" }: { onClick: () => void; className?: string }) {
  return (
    <button
      type="button"
      className={`btn btn-icon ${className}`}
      onMouseDown={noFocus}
      onClick={onClick}
      title="Keyboard shortcuts (?)"
      aria-label="Keyboard shortcuts"
    >
      ?
    </button>
  );
}

const ICON_PATHS = {
  first: "M4 3v10M13 3 6 8l7 5z",
  prev: "M10.5 3 5.5 8l5 5",
  next: "M5.5 3l5 5-5 5",
  last: "M12 3v10M3 3l7 5-7 5z",
  play: "M5 3l8 5-8 5z",
  pause: "M4 3h3v10H4zM9 3h3v10H9z",
};

export type IconName = keyof typeof ICON_PATHS;

/** Previous and next are open chevrons, so they cannot be mistaken for the filled play triangle. */
const OUTLINE_ICONS = new Set<IconName>(["prev", "next"]);

export function Icon({ name }: { name: IconName }) {
  const outline = OUTLINE_ICONS.has(name);
  return (
    <svg
      viewBox="0 0 16 16"
      className="size-3.5"
      aria-hidden
      fill={outline ? "none" : "currentColor"}
      stroke="currentColor"
      strokeWidth={outline ? 2 : 1.2}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={ICON_PATHS[name]} />
    </svg>
  );
}
