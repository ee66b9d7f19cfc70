import type { Metadata } from "next";
import { PageHeader } from "../../_components/ui";
import { requirePageUser } from "../../_lib/session";
import { api } from "../../_trpc/server";
import { hasRole } from "@/server/domain/access/actor";
import { ApiTokens } from "./api-tokens";
import { MyReports } from "./my-reports";
import { MentionsInbox } from "../../_components/mentions";

export const metadata: Metadata = { title: "Your account" };

/**
 * The signed-in person's own account: who they are, their API tokens for scripts (docs/guide/api.md) and, for
 * researchers, the shareable reports they built (docs/guide/reports.md).
 */
export default async function AccountPage() {
  const user = await requirePageUser();
  const tokens = await (await api()).accounts.apiTokens.list();
  return (
    <>
      <PageHeader title="Your account" subtitle={`${user.name} · ${user.email} · ${user.role}`} />
      <MentionsInbox />
      <ApiTokens tokens={tokens} />
      {hasRole(user, "researcher") && <MyReports />}
    </>
  );
}
