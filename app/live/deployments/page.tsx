import type { Metadata } from "next";
import { PageHeader } from "../../_components/ui";
import { api } from "../../_trpc/server";
import { DeploymentProfiles } from "./deployment-profiles";

export const metadata: Metadata = { title: "Deployment profiles" };

export default async function DeploymentProfilesPage() {
  const profiles = await (await api()).deploymentProfiles.list();
  return (
    <>
      <PageHeader
        crumbs={[{ href: "/live", label: "Live runs" }]}
        title="Deployment profiles"
        subtitle="Your deployments of the VisualWebArena / WebArena sites: where each placeholder points, how agents sign in, how sites are reset between tasks"
      />
      <DeploymentProfiles initial={profiles} />
    </>
  );
}
