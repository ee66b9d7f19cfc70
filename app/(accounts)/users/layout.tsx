import type { ReactNode } from "react";
import { forbidUnlessRole } from "../../_lib/session";

/** Admins only; others get the 403 view (app/forbidden.tsx) with a real 403 status. */
export default async function AdminSectionLayout({ children }: { children: ReactNode }) {
  await forbidUnlessRole("admin");
  return children;
}
