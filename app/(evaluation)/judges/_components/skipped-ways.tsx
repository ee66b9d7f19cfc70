/** The ways of asking that a stress test leaves out, each with why: its plan (the form) and its report list them alike. */
export function SkippedWays({ skipped, className, testId }: { skipped: { perturbation: string; reason: string }[]; className: string; testId?: string }) {
  if (skipped.length === 0) return null;
  return (
    <ul className={className} data-testid={testId}>
      {skipped.map((s) => (
        <li key={s.perturbation}>
          Not run: <span className="font-mono">{s.perturbation}</span>, {s.reason}.
        </li>
      ))}
    </ul>
  );
}
