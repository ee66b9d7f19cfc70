import { getQueryClient, orNotFound, recordPage, trpc } from "../../../../_trpc/server";
import { BatchProgressView } from "../../_components/batch-progress";

const page = recordPage("Judge batch", BatchProgressView, async (id) => {
  const queryClient = getQueryClient();
  await orNotFound(queryClient.fetchQuery(trpc.judge.batches.progress.queryOptions({ id })));
  await queryClient.prefetchQuery(trpc.judge.configs.list.queryOptions());
});

export const generateMetadata = page.generateMetadata;
export default page.Page;
