/**
 * A key-point or rubric judge's criteria against people, on the judge's page: people label the outcome, not each
 * criterion, so each measure and each criterion is scored against the consolidated outcome of one campaign (the
 * filter bar's, else the newest one whose labels cover the judge's criteria).
 */
import { EmptyState } from "../../_components/ui";
import { api } from "../../_trpc/server";
import { criteriaDisagreementTable, criteriaMeasureTable, criterionTable } from "../_lib/judge-criteria";
import { TablePanel } from "./figure";

/** Renders nothing for an evaluator that grades no criteria (any other judge, rules, imported verdicts). */
export async function CriteriaSection(props: { evaluatorKey: string; k: string; campaignId: number | undefined }) {
  const criteria = await (await api()).analytics.judgeCriteria(props);
  if (!criteria) return null;
  const r = criteria.report;
  const criteriaGraded = r ? r.byKind.reduce((n, k) => n + k.criteria, 0) : 0;
  if (!r || criteriaGraded === 0) {
    return (
      <section className="panel" aria-labelledby="criteria-empty" data-figure="criteria">
        <EmptyState title={`No criteria verdicts on labelled trajectories${r ? ` of ${r.campaign.name}` : ""}`}>
          <span id="criteria-empty">
            This {criteria.protocol} judge grades criteria on its way to each verdict. Its criteria are scored against people once it has judged trajectories a
            campaign has consolidated labels for: run it on the campaign&apos;s trajectories (Judges → Run a batch).
          </span>
        </EmptyState>
      </section>
    );
  }
  const scope =
    `Against the consolidated labels of ${r.campaign.name} (${r.outcome.items} labelled item${r.outcome.items === 1 ? "" : "s"}` +
    (r.leftOut ? `; ${r.leftOut} without a success or failure label left out` : "") +
    (r.missing ? `; ${r.missing} not judged yet` : "") +
    "). Choose another campaign in the filter bar.";
  return (
    <>
      <TablePanel
        id="criteria-measures"
        title={`Criteria against people (${criteria.protocol})`}
        description={
          <>
            People label the outcome, not each criterion, so each is scored against their outcome. {scope} Citations: {r.citations.citations} in{" "}
            {r.citations.verdicts} verdicts, <span data-testid="unverifiable-citations">{r.citations.unverifiable} unverifiable</span>.
          </>
        }
        table={criteriaMeasureTable(r)}
      />
      <TablePanel
        id="criteria-per-criterion"
        title="Per criterion"
        description="Each criterion of each task (the same wording under the same task is one criterion), the ones that agree least with people first."
        table={criterionTable(r)}
      />
      <TablePanel
        id="criteria-disagreements"
        title={`Disagreements and the criteria not met (${r.disagreements.length})`}
        description="Where the verdict and people differ; the criteria the judge graded not met are where to look first."
        table={criteriaDisagreementTable(r)}
      />
    </>
  );
}
