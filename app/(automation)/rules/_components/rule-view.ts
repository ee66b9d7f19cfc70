/** What the Rules page's parts share: a rule as the list gives it, and how often the page reads the list again. */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

export type RuleView = inferRouterOutputs<AppRouter>["automation"]["list"][number];

/** How often the list and the run log are read again: a rule's run appears soon after the import that caused it. */
export const RULES_REFRESH_MS = 4_000;
