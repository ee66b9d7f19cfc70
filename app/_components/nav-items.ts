/**
 * The top navigation. Sections that later issues build are listed with `ready: false` so the order and names
 * are settled; flipping `ready` (and adding the route) is all it takes to show one.
 */
import type { Role } from "@/server/domain/access/roles";

export interface NavItem {
  href: string;
  label: string;
  ready: boolean;
  /** Lowest role that sees the item (default: everyone signed in). The server enforces access regardless. */
  minRole?: Role;
  /** Shown only to designated QA reviewers (annotators a researcher asked to review a campaign's labels). */
  qaReviewersOnly?: boolean;
}

export const NAV_ITEMS: NavItem[] = [
  { href: "/trajectories", label: "Trajectories", ready: true },
  { href: "/task-sets", label: "Task sets", ready: true, minRole: "researcher" },
  { href: "/runs", label: "Runs", ready: true, minRole: "researcher" },
  { href: "/annotate", label: "Annotate", ready: true },
  { href: "/qa", label: "QA review", ready: true, qaReviewersOnly: true },
  { href: "/campaigns", label: "Campaigns", ready: true, minRole: "researcher" },
  { href: "/agreement", label: "Agreement", ready: false, minRole: "researcher" },
  { href: "/analytics", label: "Analytics", ready: true, minRole: "researcher" },
  { href: "/judges", label: "Judges", ready: true, minRole: "researcher" },
  { href: "/scanners", label: "Scanners", ready: true, minRole: "researcher" },
  { href: "/live", label: "Live runs", ready: true, minRole: "researcher" },
  { href: "/import", label: "Import", ready: true, minRole: "researcher" },
  { href: "/rules", label: "Rules", ready: true, minRole: "researcher" },
  { href: "/users", label: "Users", ready: true, minRole: "admin" },
];
