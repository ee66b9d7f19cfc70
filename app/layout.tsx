import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TopNav } from "./_components/top-nav";
import { TRPCReactProvider } from "./_trpc/client";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Verdict", template: "%s · Verdict" },
  description: "Review and grade trajectories of multimodal web agents",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="flex min-h-dvh flex-col">
        <TRPCReactProvider>
          <TopNav />
          <main className="flex min-h-0 flex-1 flex-col">{children}</main>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
