/** The header of every page under Judges: its breadcrumb starts at the Judges page (server-renderable: no hooks). */
import type { ComponentProps } from "react";
import { PageHeader } from "../../../_components/ui";

const JUDGES = { href: "/judges", label: "Judges" };

/** `crumbs`: the pages between Judges and this one (a stress test's "Stress tests"). */
export function JudgesPageHeader({ crumbs = [], ...header }: ComponentProps<typeof PageHeader>) {
  return <PageHeader crumbs={[JUDGES, ...crumbs]} {...header} />;
}
