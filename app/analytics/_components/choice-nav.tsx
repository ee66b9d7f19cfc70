/**
 * A row of links of which one is the page shown (campaign, agreement level, consensus model): a small title, then
 * buttons, the current one pressed and marked `aria-current="page"`.
 */
import Link from "next/link";
import type { ReactNode } from "react";

export function ChoiceNav({ label, title, className, children }: { label: string; title: string; className: string; children: ReactNode }) {
  return (
    <nav aria-label={label} className={className}>
      <span className="section-title mr-1">{title}</span>
      {children}
    </nav>
  );
}

export function Choice({ href, on, title, children }: { href: string; on: boolean; title?: string; children: ReactNode }) {
  return (
    <Link href={href} aria-current={on ? "page" : undefined} className={`btn ${on ? "btn-on" : ""}`} title={title}>
      {children}
    </Link>
  );
}
