/**
 * Empty states of the analytics views, each saying how to get the data the view needs: the pages that make it
 * first (a web user's next step), the equivalent commands folded away beneath.
 */
import Link from "next/link";
import type { ReactNode } from "react";
import { EmptyState } from "../../_components/ui";

function Commands({ lines }: { lines: string[] }) {
  return (
    <details className="mt-3 text-left">
      <summary className="cursor-pointer text-[12px] text-zinc-500">From the command line</summary>
      <pre className="mt-1 overflow-x-auto rounded-md bg-zinc-900 px-3 py-2 font-mono text-[12px] text-zinc-100">{lines.join("\n")}</pre>
    </details>
  );
}

/** Where in the web app the data comes from: a row of buttons. */
function NextSteps({ links }: { links: [href: string, label: string][] }) {
  return (
    <div className="mt-3 flex flex-wrap justify-center gap-2" data-testid="empty-next-steps">
      {links.map(([href, label]) => (
        <Link key={href} className="btn" href={href}>
          {label}
        </Link>
      ))}
    </div>
  );
}

const LABEL_STEPS: [string, string][] = [
  ["/campaigns/new", "Create a campaign"],
  ["/campaigns", "Import labels into a campaign"],
  ["/annotate", "Label trajectories"],
];
const JUDGE_STEPS: [string, string][] = [["/judges", "Run a judge batch"]];

export const JUDGE_COMMANDS = [
  "npm run cli -- judge-config add --name <name> --base-url <url> --model <model>",
  "npm run cli -- judge --config <name> --k 1,3,full --all",
  "npm run cli -- evaluate-rules --all            # VisualWebArena rule checks",
];

export const CAMPAIGN_COMMANDS = ['npm run cli -- labels import <labels.csv> --new-campaign "<name>"', "npm run cli -- labels campaigns"];

export function NoTrajectories() {
  return (
    <EmptyState title="No trajectories yet" command="npm run cli -- import <path>">
      Import agent output first; then run a judge batch or label trajectories to see figures here.
    </EmptyState>
  );
}

/** An empty view that says what it needs, where in the app to get it, the same from the command line, and a last word. */
function HowToFill({
  title,
  intro,
  links,
  commands,
  children,
}: {
  title: string;
  intro: ReactNode;
  links: [string, string][];
  commands: string[];
  children?: ReactNode;
}) {
  return (
    <EmptyState title={title}>
      <p>{intro}</p>
      <NextSteps links={links} />
      <Commands lines={commands} />
      {children && <p className="mt-2">{children}</p>}
    </EmptyState>
  );
}

export function NoEvaluations() {
  return (
    <HowToFill
      title="No verdicts or human labels yet"
      intro="Success rates appear once trajectories have been judged or labelled. Run an LMM judge batch or the benchmark's rule checks, or label in a campaign (or import labels made elsewhere on its page):"
      links={[...JUDGE_STEPS, ...LABEL_STEPS]}
      commands={[...JUDGE_COMMANDS, ...CAMPAIGN_COMMANDS.slice(0, 1)]}
    >
      Verdicts imported with trajectories (WebVoyager auto_eval logs, BrowserGym rewards, AgentRewardBench judges) count as evaluators too.
    </HowToFill>
  );
}

export function NoEvaluators() {
  return (
    <HowToFill
      title="No automatic verdicts yet"
      intro="Judge agreement compares each automatic evaluator with the consolidated human label. Run a judge batch (several k values give the k-table) or the rule checks:"
      links={JUDGE_STEPS}
      commands={JUDGE_COMMANDS}
    />
  );
}

export function NoReference() {
  return (
    <HowToFill
      title="No consolidated human labels yet"
      intro="Agreement needs a human reference: a campaign's consolidated labels (unanimous, or settled by an adjudicator). Label trajectories in a campaign, or import labels made elsewhere on the campaign's page (Import labels from a CSV or a workbook):"
      links={LABEL_STEPS}
      commands={CAMPAIGN_COMMANDS}
    >
      The evaluators are listed below with their verdicts, without agreement figures. See also{" "}
      <Link className="link" href="/analytics/humans">
        human agreement
      </Link>
      .
    </HowToFill>
  );
}

export function NoCampaigns() {
  return (
    <HowToFill
      title="No annotation campaigns yet"
      intro="Human agreement is computed per campaign from the annotators' own labels (before adjudication). Create a campaign and label, or import labels made elsewhere on the campaign's page:"
      links={LABEL_STEPS}
      commands={CAMPAIGN_COMMANDS}
    >
      Labels from a spreadsheet that do not belong to trajectories here can be checked on the{" "}
      <Link className="link" href="/analytics/csv">
        CSV agreement
      </Link>{" "}
      page.
    </HowToFill>
  );
}
