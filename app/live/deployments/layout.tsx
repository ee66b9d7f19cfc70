import type { ReactNode } from "react";
import { forbidUnlessRole } from "../../_lib/session";

/** A deployment profile is an allowance to reach private addresses: admins only (others get the 403 view). */
export default async function DeploymentsLayout({ children }: { children: ReactNode }) {
  await forbidUnlessRole("admin");
  return children;
}
