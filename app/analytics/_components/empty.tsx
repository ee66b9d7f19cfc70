/**
 * Empty states of the analytics views, each saying how to get the data the view needs: the pages that make it
 * first (a web user's next step), the equivalent commands folded away beneath.
 */
import Link from "next/link";
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

export function NoEvaluations() {
  return (
    <EmptyState title="No verdicts or human labels yet">
      <p>
        Success rates appear once trajectories have been judged or labelled. Run an LMM judge batch or the benchmark&apos;s rule checks, or label in a campaign
        (or import labels made elsewhere on its page):
      </p>
      <NextSteps links={[...JUDGE_STEPS, ...LABEL_STEPS]} />
      <Commands lines={[...JUDGE_COMMANDS, ...CAMPAIGN_COMMANDS.slice(0, 1)]} />
      <p className="mt-2">
        Verdicts imported with trajectories (WebVoyager auto_eval logs, BrowserGym rewards, AgentRewardBench judges) count as evaluators too.
      </p>
    </EmptyState>
  );
}

export function NoEvaluators() {
  return (
    <EmptyState title="No automatic verdicts yet">
      <p>
        Judge agreement compares each automatic evaluator with the consolidated human label. Run a judge batch (several k values give the k-table) or the rule
        checks:
      </p>
      <NextSteps links={JUDGE_STEPS} />
      <Commands lines={JUDGE_COMMANDS} />
    </EmptyState>
  );
}

export function NoReference() {
  return (
    <EmptyState title="No consolidated human labels yet">
      <p>
        Agreement needs a human reference: a campaign&apos;s consolidated labels (unanimous, or settled by an adjudicator). Label trajectories in a campaign, or
        import labels made elsewhere on the campaign&apos;s page (Import labels from a CSV or a workbook):
      </p>
      <NextSteps links={LABEL_STEPS} />
      <Commands lines={CAMPAIGN_COMMANDS} />
      <p className="mt-2">
        The evaluators are listed below with their verdicts, without agreement figures. See also{" "}
        <Link className="link" href="/analytics/humans">
          human agreement
        </Link>
        .
      </p>
    </EmptyState>
  );
}

export function NoCampaigns() {
  return (
    <EmptyState title="No annotation campaigns yet">
      <p>
        Human agreement is computed per campaign from the annotators&apos; own labels (before adjudication). Create a campaign and label, or import labels made
        elsewhere on the campaign&apos;s page:
      </p>
      <NextSteps links={LABEL_STEPS} />
      <Commands lines={CAMPAIGN_COMMANDS} />
      <p className="mt-2">
        Labels from a spreadsheet that do not belong to trajectories here can be checked on the{" "}
        <Link className="link" href="/analytics/csv">
          CSV agreement
        </Link>{" "}
        page.
      </p>
    </EmptyState>
  );
}
