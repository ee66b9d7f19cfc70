import { getQueryClient, orNotFound, recordPage, trpc } from "../../../../_trpc/server";
import { AlignmentStudyView } from "../../_components/alignment-study";

const page = recordPage("Alignment study", AlignmentStudyView, async (id) => {
  const queryClient = getQueryClient();
  await orNotFound(queryClient.fetchQuery(trpc.judge.alignment.versions.queryOptions({ id })));
  await Promise.all([
    queryClient.prefetchQuery(trpc.judge.alignment.splitItems.queryOptions({ id })),
    queryClient.prefetchQuery(trpc.judge.alignment.disagreements.queryOptions({ id })),
  ]);
});

export const generateMetadata = page.generateMetadata;
export default page.Page;
