"use client";
/**
 * The player's toolbar: stepping, play and speed, the Set-of-Marks, action and raw toggles, zoom and the `?` help.
 * Every button sends the command its key sends (server/domain/player/keyboard.ts).
 */
import type { PlayerCommand } from "@/server/domain/player/keyboard";
import { HelpButton, Icon, noFocus, StepNav, Toggle } from "./step-controls";

export function PlayerToolbar(props: {
  current: number;
  count: number;
  playing: boolean;
  speed: number;
  showSom: boolean;
  showAction: boolean;
  showRaw: boolean;
  canRaw: boolean;
  hasBoxes: boolean;
  run: (c: PlayerCommand) => void;
}) {
  const { current, count, playing, speed, run } = props;
  return (
    <div role="toolbar" aria-label="Player controls" className="flex h-10 shrink-0 items-center gap-1.5 border-b border-zinc-200 bg-white px-3">
      <StepNav
        current={current}
        count={count}
        counterTestId="step-counter"
        counter={
          <>
            Step <strong className="text-zinc-900">{current + 1}</strong> of {count}
          </>
        }
        onStep={run}
      />
      <span className="mx-1 h-5 w-px bg-zinc-200" />
      <button
        type="button"
        className={`btn btn-icon ${playing ? "btn-on" : ""}`}
        onMouseDown={noFocus}
        onClick={() => run("togglePlay")}
        title={playing ? "Pause (Space)" : "Play (Space)"}
        aria-label={playing ? "Pause" : "Play"}
        aria-pressed={playing}
        data-testid="play"
      >
        <Icon name={playing ? "pause" : "play"} />
      </button>
      <button
        type="button"
        className="btn tabular-nums"
        onMouseDown={noFocus}
        onClick={() => run(speed >= 4 ? "slower" : "faster")}
        title="Playback speed (- / +)"
        data-testid="speed"
      >
        {speed}×
      </button>
      <span className="mx-1 h-5 w-px bg-zinc-200" />
      <Toggle
        on={props.showSom}
        onClick={() => run("toggleOverlay")}
        title={props.hasBoxes ? "Set-of-Marks boxes (o)" : "This step has no stored boxes (o)"}
        testId="toggle-som"
      >
        SoM
      </Toggle>
      <Toggle on={props.showAction} onClick={() => run("toggleAction")} title="Action overlay (a)" testId="toggle-action">
        Action
      </Toggle>
      <Toggle
        on={props.showRaw}
        onClick={() => run("toggleRaw")}
        disabled={!props.canRaw}
        title={props.canRaw ? "Raw (unmarked) screenshot (r)" : "No raw screenshot for this step"}
        testId="toggle-raw"
      >
        Raw
      </Toggle>
      <button type="button" className="btn" onMouseDown={noFocus} onClick={() => run("toggleZoom")} title="Zoom to full resolution (z)">
        Zoom
      </button>
      <HelpButton className="ml-auto" onClick={() => run("toggleHelp")} />
    </div>
  );
}
