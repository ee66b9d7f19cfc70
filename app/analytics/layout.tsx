import type { ReactNode } from "react";
import { Suspense } from "react";
import { AnalyticsTabs } from "./_components/tabs";

export default function AnalyticsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <Suspense fallback={<div className="h-[37px] border-b border-zinc-200 bg-white" />}>
        <AnalyticsTabs />
      </Suspense>
      {children}
    </>
  );
}
