/**
 * A titled part of the player's side panels: the task panel's parts (Task, Reference answer…) are sections of the
 * page (h2); a step's (Action, Thought…) sit under the step (h3), a little tighter.
 */
import type { ReactNode } from "react";

const HEADINGS = {
  h2: "section-title mb-1.5",
  h3: "section-title mb-1",
} as const;

export function SideSection({ title, heading, children }: { title: string; heading: keyof typeof HEADINGS; children: ReactNode }) {
  const Heading = heading;
  return (
    <section>
      <Heading className={HEADINGS[heading]}>{title}</Heading>
      {children}
    </section>
  );
}
