/**
 * The analytics filters written back into a URL, and the names they travel under: the part of params.ts the
 * browser needs (the filter bar, the flagged-tasks toggle). Nothing here may import zod or other server-side
 * weight: tests/unit/analytics-client-weight.test.ts walks the client parts' imports.
 */
import type { UnparseablePolicy } from "@/server/domain/analytics/measures";
import { formatReferenceSpec, type ReferenceSpec } from "@/server/domain/analytics/reference";
import type { DifficultyDimension } from "@/server/domain/analytics/selection";

export interface AnalyticsParams {
  taskSetId?: number;
  runId?: number;
  /** null = tasks without a site. */
  site?: string | null;
  /** Campaign whose consolidated labels are the human reference. */
  campaignId?: number;
  unparseable: UnparseablePolicy;
  difficulty: DifficultyDimension;
  /** Split key (`by=lang`, `by=site`, `by=difficulty:visual`…); absent = no split. */
  by?: string;
  /** Human reference of the judge views (`ref=majority`, `ref=annotator:Ann`); absent = the consolidated label. */
  reference?: ReferenceSpec;
  /** Count trajectories of tasks flagged in the validity ledger too (`flagged=include`); left out by default. */
  includeFlagged?: boolean;
}

/** URL parameter of the flagged-tasks toggle (`flagged=include` counts them; the trajectory list uses the same). */
export const FLAGGED_PARAM = "flagged";

/** URL value standing for "tasks without a site". */
export const NO_SITE = "(none)";

/** Search string for the params (plus page-specific extras), "" when everything is default. */
export function analyticsSearch(p: Partial<AnalyticsParams>, extra: Record<string, string | number | undefined> = {}): string {
  const out = new URLSearchParams();
  if (p.taskSetId !== undefined) out.set("set", String(p.taskSetId));
  if (p.runId !== undefined) out.set("run", String(p.runId));
  if (p.site !== undefined) out.set("site", p.site === null ? NO_SITE : p.site);
  if (p.campaignId !== undefined) out.set("campaign", String(p.campaignId));
  if (p.unparseable === "failure") out.set("unparseable", "failure");
  if (p.difficulty !== undefined && p.difficulty !== "overall") out.set("dim", p.difficulty);
  if (p.by) out.set("by", p.by);
  if (p.reference && p.reference.kind !== "consolidated") out.set("ref", formatReferenceSpec(p.reference));
  if (p.includeFlagged) out.set(FLAGGED_PARAM, "include");
  for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== "") out.set(k, String(v));
  const s = out.toString();
  return s ? `?${s}` : "";
}
