/**
 * The app's dense table (`.table-dense` in globals.css): its header row from a list of columns, its body from the
 * children. No hooks, so server and client components can both render it. Analytics' table models have their own
 * renderer (`app/analytics/_components/data-table.tsx`).
 */
import type { ReactNode } from "react";

/**
 * A column's header: its text, or the text with the header cell's class (alignment, width) and a tooltip. `hidden`
 * headers are read by screen readers only (an actions column).
 */
export type Column = string | { label: string; className?: string; title?: string; hidden?: boolean };

/** A right-aligned column, for figures. */
export function right(label: string, title?: string): Column {
  return { label, className: "text-right", title };
}

/** A column whose header only screen readers read (buttons in each row). */
export function hidden(label: string, className?: string): Column {
  return { label, className, hidden: true };
}

/** The header row. `cellClassName` is the class of every header given as text alone. */
export function TableHead({ columns, cellClassName }: { columns: readonly Column[]; cellClassName?: string }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) => {
          const col = typeof c === "string" ? { label: c, className: cellClassName } : c;
          return (
            <th key={`${i}-${col.label}`} className={col.className} title={col.title}>
              {col.hidden ? <span className="sr-only">{col.label}</span> : col.label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/** `<table className="table-dense …">` with its header row; the children are the body's rows. */
export function DenseTable({
  columns,
  cellClassName,
  className,
  testId,
  children,
}: {
  columns: readonly Column[];
  cellClassName?: string;
  /** Added to `table-dense`. */
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <table className={className ? `table-dense ${className}` : "table-dense"} data-testid={testId}>
      <TableHead columns={columns} cellClassName={cellClassName} />
      <tbody>{children}</tbody>
    </table>
  );
}
