import type { Metadata } from "next";
import { getAppContext } from "@/server/context";
import { describeInvitation } from "@/server/services/accounts";
import { ErrorPanel } from "../../../_components/ui";
import { AcceptInvitationForm } from "./accept-form";

export const metadata: Metadata = { title: "Invitation" };

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const token = (await params).token;
  let invitation;
  try {
    invitation = await describeInvitation(getAppContext(), token);
  } catch (e) {
    return <ErrorPanel title="Invitation not valid" message={(e as Error).message} />;
  }
  return (
    <div className="flex flex-1 items-start justify-center px-4 py-16">
      <div className="panel w-full max-w-sm px-6 py-6 shadow-sm">
        <h1 className="text-base font-semibold text-zinc-900">Join Verdict</h1>
        <p className="mt-1 text-[12.5px] text-zinc-600">
          You are invited as <strong>{invitation.role}</strong> with the email <strong>{invitation.email}</strong>. Choose your name and a password.
        </p>
        <AcceptInvitationForm token={token} email={invitation.email} defaultName={invitation.name ?? ""} />
      </div>
    </div>
  );
}
