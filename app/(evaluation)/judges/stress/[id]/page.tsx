import { getQueryClient, orNotFound, recordPage, trpc } from "../../../../_trpc/server";
import { StressReportView } from "../../_components/stress-report";

const page = recordPage("Stress test", StressReportView, (id) => orNotFound(getQueryClient().fetchQuery(trpc.judge.stress.report.queryOptions({ id }))));

export const generateMetadata = page.generateMetadata;
export default page.Page;
