"use client";
/**
 * The labelling page's client side: the trajectory player with the label panel first in its right column.
 */
import { useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import { LABEL_SHORTCUTS } from "@/server/domain/annotation/label-keys";
import { TrajectoryPlayer } from "../../../trajectories/[id]/_components/player";
import { useTRPC } from "../../../_trpc/client";
import { LabelPanel } from "./label-panel";
import { QualificationBanner, QualificationFeedbackPanel } from "./qualification-feedback";
import { MarkingLayer, type MarkingView } from "./region-marking";
import { RevealPanel } from "./reveal-panel";

/** The item number an address `/annotate/<campaign>/<item>` names, if it is this campaign's. */
function itemNoInPath(pathname: string | null, campaignId: number): number | null {
  const m = /^\/annotate\/(\d+)\/(\d+)\/?$/.exec(pathname ?? "");
  return m && Number(m[1]) === campaignId && Number(m[2]) > 0 ? Number(m[2]) : null;
}

/** The step the address asks for (`?step=N`, 1-based), else the first. */
function stepInAddress(): number {
  const step = typeof window === "undefined" ? NaN : Number(new URL(window.location.href).searchParams.get("step"));
  return Number.isInteger(step) && step > 0 ? step : 1;
}

/**
 * The labelling page's item: the one the address names. The page renders the item it was opened on; Submit & next
 * changes the address in place when it has the next item ready (look-ahead.ts), and Back and Forward move between
 * those items, so the item shown follows the address rather than the page's first one.
 */
export function LabellingItems({
  campaignId,
  itemNo,
  initialStep,
  commentsOpen,
}: {
  campaignId: number;
  itemNo: number;
  initialStep: number;
  commentsOpen?: boolean;
}) {
  const shown = itemNoInPath(usePathname(), campaignId) ?? itemNo;
  const opened = shown === itemNo;
  return (
    <LabellingWorkspace
      // Keyed by item, so the next one starts with a fresh player, form, timer and steps-viewed set.
      key={`${campaignId}:${shown}`}
      campaignId={campaignId}
      itemNo={shown}
      initialStep={opened ? initialStep : stepInAddress()}
      commentsOpen={opened && commentsOpen}
    />
  );
}

export function LabellingWorkspace({
  campaignId,
  itemNo,
  initialStep = 1,
  commentsOpen,
}: {
  campaignId: number;
  itemNo: number;
  initialStep?: number;
  /** Open with the comments showing (`?panel=comments`). */
  commentsOpen?: boolean;
}) {
  const trpc = useTRPC();
  const { data: campaign } = useSuspenseQuery(trpc.labelling.campaign.queryOptions({ id: campaignId }));
  const { data: mine } = useSuspenseQuery(trpc.labelling.mine.queryOptions({ campaignId, itemNo }));
  // The label panel's region marks, drawn over the screenshot (null while no label panel is shown).
  const [marking, setMarking] = useState<MarkingView | null>(null);
  // The campaign's training phase (null without one): a banner on its items, their feedback once answered.
  const { data: training } = useQuery(trpc.labelling.qualification.queryOptions({ campaignId }, { enabled: campaign.isAnnotator }));
  const feedback = mine.qualification;
  const standing = feedback ? { ...training, ...feedback.standing, askName: training?.askName ?? null } : training;
  const onTrainingItem = !!feedback || (training?.status === "in_progress" && training.nextItemNo === itemNo);
  const schema = campaign.labelSchema;
  return (
    <>
      <TrajectoryPlayer
        source={{ campaignId, itemNo }}
        initialStep={initialStep}
        sidePanelFirst
        // The reveal panel keeps the blind label with `c`: there the comments open from the header's button.
        commentsKey={!(campaign.reveal && mine.label && campaign.isAnnotator)}
        commentsOpen={commentsOpen}
        // Back to the queue the annotator works from, not the trajectory list.
        back={{ href: `/annotate/${campaignId}`, label: campaign.name }}
        stageLayer={(p) => marking && <MarkingLayer view={marking} {...p} />}
        // The `?` help lists the label keys after the player's, as the label panel's own list offers them.
        extraShortcuts={LABEL_SHORTCUTS.filter((s) => (s.keys[0] !== "q" || schema.allowUnsure) && (s.keys[0] !== "b" || schema.allowNotExecutable)).map(
          asHelpRow,
        )}
        sidePanel={(p) =>
          feedback ? (
            <>
              {standing && <QualificationBanner standing={{ ...standing, nextItemNo: null }} answeredHere />}
              <QualificationFeedbackPanel
                key={`training:${campaignId}:${itemNo}`}
                campaign={campaign}
                mine={mine}
                feedback={feedback}
                askName={standing?.askName ?? null}
              />
            </>
          ) : // A reveal campaign shows its evaluator once the blind label is in (never before: the server refuses it).
          campaign.reveal && mine.label && campaign.isAnnotator ? (
            <RevealPanel key={`reveal:${campaignId}:${itemNo}`} campaign={campaign} itemNo={itemNo} mine={mine} current={p.current} count={p.count} go={p.go} />
          ) : (
            // Keyed by item so moving to the next one starts a fresh form, timer and steps-viewed set.
            <>
              {onTrainingItem && training && <QualificationBanner standing={training} answeredHere={false} />}
              <LabelPanel
                key={`${campaignId}:${itemNo}`}
                stayAfterSubmit={campaign.reveal || onTrainingItem}
                campaign={campaign}
                itemNo={itemNo}
                mine={mine}
                current={p.current}
                count={p.count}
                go={p.go}
                onMarking={setMarking}
              />
            </>
          )
        }
      />
      <LabelJump />
    </>
  );
}

/**
 * A label key as one entry of the player's help, which reads several keys as alternatives ("← / k"): a chord
 * becomes "Ctrl/⌘+Enter" and the category range "1–9".
 */
function asHelpRow(s: { keys: string[]; description: string }) {
  return s.keys.length > 1 ? { ...s, keys: [s.keys[1] === "…" ? `${s.keys[0]}–${s.keys.at(-1)}` : s.keys.join("+")] } : s;
}

/**
 * Below the wide layout (a tablet held upright) the page stacks: task, screenshot, then the label form about a screen
 * further down. A button kept in the corner jumps between the form and the screenshot, saying where it goes.
 */
function LabelJump() {
  const [formInView, setFormInView] = useState(false);
  useEffect(() => {
    // Read on scroll rather than observed: the form mounts with the player, after this effect may have run.
    const check = () => {
      const r = document.querySelector('[data-testid="label-panel"]')?.getBoundingClientRect();
      // The form is "the view" once it reaches the top third: with the screenshot scrolled to the top the form's
      // first lines still show below it, and the button must then offer the way down, not back up.
      setFormInView(!!r && r.top < window.innerHeight * 0.3 && r.bottom > 0);
    };
    check();
    // Captured: the page may scroll in a container rather than the window.
    document.addEventListener("scroll", check, { passive: true, capture: true });
    window.addEventListener("resize", check);
    return () => {
      document.removeEventListener("scroll", check, { capture: true });
      window.removeEventListener("resize", check);
    };
  }, []);
  const target = formInView ? '[aria-label="Step viewer"]' : '[data-testid="label-panel"]';
  return (
    <button
      type="button"
      className="btn btn-on fixed right-4 bottom-4 z-30 shadow-md lg:hidden"
      onClick={() => document.querySelector(target)?.scrollIntoView({ block: "start" })}
      data-testid="label-jump"
    >
      {formInView ? "↑ Screenshot" : "↓ Label this trajectory"}
    </button>
  );
}
