/**
 * How an analytics page starts (server components only): its filters from the URL, the caller, the filter options,
 * and the whole page to show instead while the database holds nothing the view could draw.
 */
import { PageHeader } from "../../_components/ui";
import { api } from "../../_trpc/server";
import { parseAnalyticsParams } from "../_lib/params";
import { NoCampaigns, NoTrajectories } from "./empty";

/** What Next.js hands an analytics page. */
export interface AnalyticsPageProps {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

/** The URL's parameters, the filters parsed from them, the caller, and the filter bar's options (runs, sites, campaigns, counts). */
export async function startAnalyticsPage({ searchParams }: AnalyticsPageProps) {
  const sp = await searchParams;
  const caller = await api();
  const options = await caller.analytics.options();
  return { sp, params: parseAnalyticsParams(sp), caller, options };
}

/** The URL's parameters, the caller and the campaigns a campaign view chooses from. */
export async function startCampaignPage({ searchParams }: AnalyticsPageProps) {
  const sp = await searchParams;
  const caller = await api();
  const campaigns = await caller.analytics.campaigns();
  return { sp, caller, campaigns };
}

/** A view's page while no trajectory has been imported: its title and how to import. */
export function NothingImportedPage({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} subtitle="Nothing imported yet" />
      <NoTrajectories />
    </>
  );
}

/** A campaign view's page while there is no campaign: its title and how to make one. */
export function NoCampaignsPage({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} subtitle="No campaigns yet" />
      <NoCampaigns />
    </>
  );
}
