import type { Metadata } from "next";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { SignedInUserProvider } from "./_components/signed-in-user";
import { TopNav } from "./_components/top-nav";
import { currentPath, currentUser, signInUrl } from "./_lib/session";
import { TRPCReactProvider } from "./_trpc/client";
import { api, getQueryClient, HydrateClient, serverRenderApiUrl, trpc } from "./_trpc/server";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Verdict", template: "%s · Verdict" },
  description: "Review and grade trajectories of multimodal web agents",
};

/** Pages anyone may open (sign-in, first-run setup, invitations); everything else needs a session. */
const PUBLIC_PATHS = [/^\/sign-in(\/|$|\?)/, /^\/invite\//];

export default async function RootLayout({ children }: { children: ReactNode }) {
  const user = await currentUser();
  const path = await currentPath();
  if (!user && !PUBLIC_PATHS.some((re) => re.test(path))) redirect(signInUrl(path));
  // Designated QA reviewers (often plain annotators) get the QA page in the nav.
  const qaReviewer = user ? await (await api()).qa.isReviewer().catch(() => false) : false;
  // The top bar's unread mentions come with the page (streamed, not awaited) instead of a request after hydration.
  if (user) void getQueryClient().prefetchQuery(trpc.comments.inbox.queryOptions());
  const serverApiUrl = await serverRenderApiUrl();
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col">
        <TRPCReactProvider serverApiUrl={serverApiUrl}>
          <SignedInUserProvider user={user}>
            <HydrateClient>
              <TopNav user={user} qaReviewer={qaReviewer} />
            </HydrateClient>
            <main className="flex min-h-0 flex-1 flex-col">{children}</main>
          </SignedInUserProvider>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
