import { ErrorPanel } from "../../../_components/ui";

export function ResearchersOnly() {
  return (
    <ErrorPanel
      title="Researchers only"
      message="Campaigns, progress and adjudication are for researchers and admins. Your labelling queues are under Annotate."
    />
  );
}
