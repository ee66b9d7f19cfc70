import type { ReactNode } from "react";
import { Suspense } from "react";
import { forbidUnlessRole } from "../_lib/session";
import { AnalyticsTabs } from "./_components/tabs";

/** Researchers and admins only; annotators get the 403 view (app/forbidden.tsx) with a real 403 status. */
export default async function AnalyticsLayout({ children }: { children: ReactNode }) {
  await forbidUnlessRole("researcher");
  return (
    <>
      <Suspense fallback={<div className="h-[37px] border-b border-zinc-200 bg-white" />}>
        <AnalyticsTabs />
      </Suspense>
      {children}
    </>
  );
}
