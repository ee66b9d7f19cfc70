import type { Metadata } from "next";
import { PageHeader } from "../../_components/ui";
import { getQueryClient, HydrateClient, trpc } from "../../_trpc/server";
import { ScannerForm } from "./_components/scanner-form";
import { ScannerList } from "./_components/scanner-list";
import { ScannerRun } from "./_components/scanner-run";

export const metadata: Metadata = { title: "Scanners" };

export default async function ScannersPage() {
  const queryClient = getQueryClient();
  await queryClient.prefetchQuery(trpc.scanners.list.queryOptions());
  return (
    <HydrateClient>
      <PageHeader
        title="Scanners"
        subtitle="Detectors of environment faults (CAPTCHAs, login walls, sites down…) over steps, checked against people's labels before they are trusted"
      />
      <div className="flex flex-col gap-4 px-6 py-4">
        <ScannerList />
        <ScannerRun />
        <ScannerForm />
      </div>
    </HydrateClient>
  );
}
