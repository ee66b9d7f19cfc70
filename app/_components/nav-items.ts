/**
 * The top navigation. Sections that later issues build are listed with `ready: false` so the order and names
 * are settled; flipping `ready` (and adding the route) is all it takes to show one.
 */
export interface NavItem {
  href: string;
  label: string;
  ready: boolean;
}

export const NAV_ITEMS: NavItem[] = [
  { href: "/trajectories", label: "Trajectories", ready: true },
  { href: "/task-sets", label: "Task sets", ready: true },
  { href: "/runs", label: "Runs", ready: true },
  { href: "/annotate", label: "Annotate", ready: false },
  { href: "/agreement", label: "Agreement", ready: false },
  { href: "/analytics", label: "Analytics", ready: true },
  { href: "/judges", label: "Judges", ready: false },
  { href: "/live", label: "Live runs", ready: true },
];
