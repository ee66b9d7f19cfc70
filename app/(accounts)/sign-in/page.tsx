import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { safeNextPath } from "@/server/domain/safe-redirect";
import { currentUser } from "../../_lib/session";
import { api } from "../../_trpc/server";
import { SetupForm, SignInForm } from "./_components/sign-in-form";

export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function SignInPage({ searchParams }: Props) {
  // Only same-site paths are followed after sign-in (never another origin).
  const next = safeNextPath((await searchParams).next);
  if (await currentUser()) redirect(next);
  const { needsSetup: setup } = await (await api()).accounts.session();
  return (
    <div className="flex flex-1 items-start justify-center px-4 py-16">
      <div className="panel w-full max-w-sm px-6 py-6 shadow-sm">
        {setup ? (
          <>
            <h1 className="text-base font-semibold text-zinc-900">Set up Verdict</h1>
            <p className="mt-1 text-[12.5px] text-zinc-600">
              No account exists yet. The first account administers this installation: it creates researchers and annotators.
            </p>
            <SetupForm next={next} />
          </>
        ) : (
          <>
            <h1 className="text-base font-semibold text-zinc-900">Sign in</h1>
            <p className="mt-1 text-[12.5px] text-zinc-600">Accounts are created by an admin; ask one for an invitation.</p>
            <SignInForm next={next} />
          </>
        )}
      </div>
    </div>
  );
}
