import type { ReactNode } from "react";
import { forbidUnlessRole } from "../../_lib/session";

/** Researchers and admins only; annotators get the 403 view (app/forbidden.tsx) with a real 403 status. */
export default async function RulesLayout({ children }: { children: ReactNode }) {
  await forbidUnlessRole("researcher");
  return children;
}
