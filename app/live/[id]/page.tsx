import { getQueryClient, orNotFound, recordPage, trpc } from "../../_trpc/server";
import { LiveRunView } from "../_components/live-run-view";

const page = recordPage("Live run", LiveRunView, (id) => orNotFound(getQueryClient().fetchQuery(trpc.liveRuns.byId.queryOptions({ id }))));

export const generateMetadata = page.generateMetadata;
export default page.Page;
