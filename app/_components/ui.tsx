/**
 * Small presentational pieces shared by pages (server-renderable: no hooks).
 */
import Link from "next/link";
import type { ReactNode } from "react";

// "Answered" is how a trajectory ended, not whether the answer is right: neutral, never success green.
const OUTCOME_STYLE: Record<string, string> = {
  answered: "bg-slate-100 text-slate-700 ring-slate-500/20",
  step_limit: "bg-amber-50 text-amber-800 ring-amber-600/20",
  time_limit: "bg-amber-50 text-amber-800 ring-amber-600/20",
  error: "bg-rose-50 text-rose-700 ring-rose-600/20",
  cancelled: "bg-zinc-100 text-zinc-600 ring-zinc-500/20",
  running: "bg-sky-50 text-sky-700 ring-sky-600/20",
  unknown: "bg-zinc-100 text-zinc-600 ring-zinc-500/20",
  // Neither is the agent's doing: the deployment failed, or the website refused the agent.
  infra_error: "bg-violet-50 text-violet-700 ring-violet-600/20",
  blocked: "bg-orange-50 text-orange-800 ring-orange-600/20",
};

export const OUTCOME_LABEL: Record<string, string> = {
  answered: "answered",
  step_limit: "step limit",
  time_limit: "time limit",
  error: "error",
  cancelled: "cancelled",
  running: "running",
  unknown: "unknown",
  infra_error: "infrastructure error",
  blocked: "blocked",
};

export function OutcomeBadge({ outcome }: { outcome: string }) {
  return (
    <span
      className={`inline-flex items-center rounded px-1.5 py-px text-2xs font-medium whitespace-nowrap ring-1 ring-inset ${
        OUTCOME_STYLE[outcome] ?? OUTCOME_STYLE.unknown
      }`}
    >
      {OUTCOME_LABEL[outcome] ?? outcome}
    </span>
  );
}

export function Chip({ children, title, tone = "zinc" }: { children: ReactNode; title?: string; tone?: "zinc" | "indigo" | "amber" | "rose" }) {
  const tones = {
    zinc: "bg-zinc-100 text-zinc-700",
    indigo: "bg-indigo-50 text-indigo-700",
    amber: "bg-amber-50 text-amber-800",
    rose: "bg-rose-50 text-rose-700",
  };
  return (
    <span title={title} className={`inline-flex max-w-full items-center truncate rounded px-1.5 py-px text-2xs font-medium ${tones[tone]}`}>
      {children}
    </span>
  );
}

export function PageHeader({
  title,
  subtitle,
  actions,
  crumbs,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  actions?: ReactNode;
  crumbs?: { href: string; label: string }[];
}) {
  return (
    <div className="border-b border-zinc-200 bg-white px-6 py-3">
      {crumbs && crumbs.length > 0 && (
        <nav aria-label="Breadcrumb" className="mb-0.5 flex items-center gap-1 text-2xs text-zinc-500">
          {crumbs.map((c, i) => (
            <span key={c.href} className="flex items-center gap-1">
              {i > 0 && <span aria-hidden>/</span>}
              <Link className="hover:text-zinc-800 hover:underline" href={c.href}>
                {c.label}
              </Link>
            </span>
          ))}
        </nav>
      )}
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="truncate text-base font-semibold text-zinc-900">{title}</h1>
          {subtitle && <div className="mt-0.5 text-[12px] text-zinc-500">{subtitle}</div>}
        </div>
        {actions && <div className="flex items-center gap-2">{actions}</div>}
      </div>
    </div>
  );
}

export function EmptyState({ title, children, command }: { title: string; children?: ReactNode; command?: string }) {
  return (
    <div className="mx-auto my-12 max-w-xl rounded-lg border border-dashed border-zinc-300 bg-white px-6 py-8 text-center">
      <h2 className="text-sm font-semibold text-zinc-800">{title}</h2>
      {children && <div className="mt-1.5 text-[12.5px] text-zinc-600">{children}</div>}
      {command && (
        <pre className="mt-4 overflow-x-auto rounded-md bg-zinc-900 px-3 py-2 text-left font-mono text-[12px] text-zinc-100">
          <code>{command}</code>
        </pre>
      )}
    </div>
  );
}

export function ErrorPanel({ title, message, children }: { title: string; message?: string; children?: ReactNode }) {
  return (
    <div role="alert" className="mx-auto my-12 max-w-xl rounded-lg border border-rose-200 bg-rose-50 px-6 py-5">
      <h2 className="text-sm font-semibold text-rose-800">{title}</h2>
      {/* Sentences, not code: a monospace message read as a crash (review 2, #21). */}
      {message && <p className="mt-1 text-[12.5px] break-words whitespace-pre-wrap text-rose-700">{message}</p>}
      {children && <div className="mt-3">{children}</div>}
    </div>
  );
}

export function Stat({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <div className="min-w-0 rounded-lg border border-zinc-200 bg-white px-3 py-2" title={hint}>
      <div className="section-title truncate">{label}</div>
      <div className="mt-0.5 text-lg font-semibold text-zinc-900 tabular-nums">{value}</div>
    </div>
  );
}

/** One figure of a `<dl>`: its name above, its value below (`valueClassName`: the value's look, figures' digits by default). */
export function Figure({
  label,
  value,
  testId,
  valueClassName = "tabular-nums",
}: {
  label: string;
  value: ReactNode;
  testId?: string;
  valueClassName?: string;
}) {
  return (
    <div>
      <dt className="section-title">{label}</dt>
      <dd className={valueClassName} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

/** A panel of a form or a page's work (a batch's trajectories, a run's limits): its title, then its parts stacked. */
export function PanelSection({ title, label, testId, children }: { title: ReactNode; label?: string; testId?: string; children: ReactNode }) {
  return (
    <section className="panel flex flex-col gap-3 px-4 py-3" aria-label={label} data-testid={testId}>
      <h2 className="section-title">{title}</h2>
      {children}
    </section>
  );
}

/** A record's number (#12), linking to its page. */
export function NumberLink({ id, href }: { id: number; href: string }) {
  return (
    <Link className="link" href={href}>
      #{id}
    </Link>
  );
}

/** A trajectory's number, linking to its player. */
export function TrajectoryLink({ id }: { id: number }) {
  return <NumberLink id={id} href={`/trajectories/${id}`} />;
}

/** Links drawn as buttons side by side: a page's or a selection's next steps (`on`: the main one). */
export function LinkButtons({ links }: { links: { href: string; label: string; title?: string; testId?: string; on?: boolean }[] }) {
  return links.map((l) => (
    <Link key={l.href} className={l.on ? "btn btn-on" : "btn"} href={l.href} title={l.title} data-testid={l.testId}>
      {l.label}
    </Link>
  ));
}

/**
 * A list read from the server, in the state it is in: why it could not be read (`cannotRead`: "The runs could not
 * be read"), loading (`loading`), `empty` when it holds nothing, else `children` drawn from its rows.
 */
export function ListStates<T>({
  query,
  cannotRead,
  loading,
  empty,
  children,
}: {
  query: { error: { message: string } | null; data: T[] | undefined };
  cannotRead: string;
  loading: string;
  empty: ReactNode;
  children: (rows: T[]) => ReactNode;
}) {
  if (query.error)
    return (
      <p role="alert" className="text-[12.5px] text-rose-700">
        {cannotRead}: {query.error.message}
      </p>
    );
  if (!query.data)
    return (
      <p className="text-[12.5px] text-zinc-500" role="status">
        {loading}
      </p>
    );
  return query.data.length === 0 ? empty : children(query.data);
}

/** The question before removing something, the button that does it (`confirm`: its label) and Keep, which has the focus. */
export function ConfirmButtons({
  question,
  confirm,
  onConfirm,
  onKeep,
  pending,
  testId,
}: {
  question: string;
  confirm: string;
  onConfirm: () => void;
  onKeep: () => void;
  pending: boolean;
  testId: string;
}) {
  return (
    <>
      <span className="text-rose-700">{question}</span>
      <button type="button" className="btn" onClick={onConfirm} disabled={pending} data-testid={testId}>
        {confirm}
      </button>
      <button type="button" className="btn" onClick={onKeep} autoFocus>
        Keep
      </button>
    </>
  );
}

/** A table cell naming an agent or a run, with its model beneath in small type when it has one. */
export function WithModelCell({ name, model }: { name: string; model: string | null }) {
  return (
    <td>
      <div>{name}</div>
      {model && <div className="font-mono text-2xs text-zinc-500">{model}</div>}
    </td>
  );
}

/** Page links for offset pagination; `href(n)` builds the URL of page n. */
export function Pagination({
  page,
  pageCount,
  total,
  pageSize,
  href,
}: {
  page: number;
  pageCount: number;
  total: number;
  pageSize: number;
  href: (page: number) => string;
}) {
  const pages = pageWindow(page, pageCount);
  return (
    <div className="flex flex-wrap items-center justify-between gap-2 text-[12px] text-zinc-600">
      <span className="tabular-nums" data-testid="page-range">
        {pageRangeText(page, pageSize, total)}
      </span>
      <nav aria-label="Pagination" className="flex items-center gap-1">
        <PageLink href={href(page - 1)} disabled={page <= 1} label="‹ Prev" rel="prev" />
        {pages.map((p, i) =>
          p === null ? (
            <span key={`gap-${i}`} className="px-1 text-zinc-400">
              …
            </span>
          ) : (
            <PageLink key={p} href={href(p)} current={p === page} label={String(p)} />
          ),
        )}
        <PageLink href={href(page + 1)} disabled={page >= pageCount} label="Next ›" rel="next" />
      </nav>
    </div>
  );
}

function PageLink({ href, label, disabled, current, rel }: { href: string; label: string; disabled?: boolean; current?: boolean; rel?: string }) {
  if (disabled) return <span className="btn pointer-events-none opacity-40">{label}</span>;
  return (
    <Link href={href} rel={rel} aria-current={current ? "page" : undefined} className={`btn tabular-nums ${current ? "btn-on" : ""}`}>
      {label}
    </Link>
  );
}

/** "51–100 of 230"; a page past the last one says so instead of an impossible range like "4,901–13 of 13". */
export function pageRangeText(page: number, pageSize: number, total: number): string {
  if (total === 0) return "0 of 0";
  const from = (page - 1) * pageSize + 1;
  if (from > total) return `Page ${formatCount(page)} is past the last page (${formatCount(Math.ceil(total / pageSize))}) · ${formatCount(total)} in all`;
  return `${formatCount(from)}–${formatCount(Math.min(total, page * pageSize))} of ${formatCount(total)}`;
}

/** 1 … 4 5 [6] 7 8 … 20 */
export function pageWindow(page: number, pageCount: number): (number | null)[] {
  const want = new Set([1, pageCount, page - 2, page - 1, page, page + 1, page + 2].filter((p) => p >= 1 && p <= pageCount));
  const sorted = [...want].sort((a, b) => a - b);
  const out: (number | null)[] = [];
  sorted.forEach((p, i) => {
    if (i > 0 && p - sorted[i - 1]! > 1) out.push(null);
    out.push(p);
  });
  return out;
}

export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

export function formatPercent(part: number, whole: number): string {
  if (!whole) return "–";
  return `${((100 * part) / whole).toFixed(whole >= 100 ? 1 : 0)}%`;
}

export function formatDate(d: Date | string | number | null | undefined): string {
  if (d === null || d === undefined) return "–";
  const date = d instanceof Date ? d : new Date(d);
  if (Number.isNaN(date.getTime())) return "–";
  return date.toISOString().slice(0, 16).replace("T", " ");
}

/** Horizontal stacked bar of outcome counts. */
export function OutcomeBar({ counts }: { counts: Record<string, number> }) {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  if (!total) return <span className="text-zinc-400">–</span>;
  const colour: Record<string, string> = {
    answered: "bg-emerald-500",
    step_limit: "bg-amber-400",
    time_limit: "bg-amber-300",
    error: "bg-rose-500",
    cancelled: "bg-zinc-400",
    running: "bg-sky-400",
    unknown: "bg-zinc-300",
    infra_error: "bg-violet-400",
    blocked: "bg-orange-400",
  };
  const order = ["answered", "step_limit", "time_limit", "error", "cancelled", "running", "unknown", "infra_error", "blocked"];
  const keys = [...order.filter((k) => counts[k]), ...Object.keys(counts).filter((k) => !order.includes(k) && counts[k])];
  return (
    <div className="w-full min-w-24">
      <div className="flex h-2 w-full overflow-hidden rounded-full bg-zinc-100">
        {keys.map((k) => (
          <div
            key={k}
            className={colour[k] ?? "bg-zinc-300"}
            style={{ width: `${(100 * counts[k]!) / total}%` }}
            title={`${OUTCOME_LABEL[k] ?? k}: ${counts[k]}`}
          />
        ))}
      </div>
      <div className="mt-1 flex flex-wrap gap-x-2 text-2xs text-zinc-500">
        {keys.map((k) => (
          <span key={k} className="whitespace-nowrap tabular-nums">
            {OUTCOME_LABEL[k] ?? k} {counts[k]}
          </span>
        ))}
      </div>
    </div>
  );
}
