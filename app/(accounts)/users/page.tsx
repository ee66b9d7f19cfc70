import type { Metadata } from "next";
import { ErrorPanel, PageHeader } from "../../_components/ui";
import { requirePageRole } from "../../_lib/session";
import { api } from "../../_trpc/server";
import { UserAdmin } from "./user-admin";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const { user, allowed } = await requirePageRole("admin");
  if (!allowed) return <ErrorPanel title="Admins only" message="Accounts are managed by admins." />;
  const data = await (await api()).accounts.list();
  return (
    <>
      <PageHeader title="Users" subtitle="Admins manage accounts; researchers run campaigns and analyses; annotators label their queues." />
      <UserAdmin me={user.userId} users={data.users} invitations={data.invitations} />
    </>
  );
}
