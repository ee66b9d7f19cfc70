import type { Metadata } from "next";
import { TRPCError } from "@trpc/server";
import { ErrorPanel } from "../../../_components/ui";
import { api } from "../../../_trpc/server";
import { AcceptInvitationForm } from "./accept-form";

export const metadata: Metadata = { title: "Invitation" };

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const token = (await params).token;
  let invitation;
  try {
    invitation = await (await api()).accounts.invitation({ token });
  } catch (e) {
    // A token of the wrong length fails the input check, whose message is for developers: say what the link is.
    const message =
      e instanceof TRPCError && e.code === "BAD_REQUEST" ? "This invitation link is not valid: it is not a whole invitation link" : (e as Error).message;
    return <ErrorPanel title="Invitation not valid" message={message} />;
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
