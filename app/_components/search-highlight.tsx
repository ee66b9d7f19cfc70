/**
 * Behaviour-search highlights: the parts of a hit as the list receives them, and any text marked where the search's
 * words occur (the player marks the hit it was opened at from the `hl` terms in its URL).
 */
import { clausesFromTerms, matchRanges, type TextPart } from "@/server/domain/trajectories/search-query";

export function MarkedParts({ parts }: { parts: TextPart[] }) {
  return (
    <>
      {parts.map((p, i) =>
        p.match ? (
          <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-zinc-900" data-testid="search-mark">
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        ),
      )}
    </>
  );
}

/** `text` with every occurrence of the terms' words marked; unchanged when there are no terms. */
export function HighlightedText({ text, terms }: { text: string; terms: readonly string[] }) {
  const clauses = clausesFromTerms(terms);
  if (!clauses.length) return <>{text}</>;
  const parts: TextPart[] = [];
  let at = 0;
  for (const [s, e] of matchRanges(text, clauses)) {
    if (s > at) parts.push({ text: text.slice(at, s), match: false });
    parts.push({ text: text.slice(s, e), match: true });
    at = e;
  }
  if (at < text.length) parts.push({ text: text.slice(at), match: false });
  return <MarkedParts parts={parts} />;
}

/** True when the terms' words occur in `text`. */
export function hasHighlight(text: string | null | undefined, terms: readonly string[]): boolean {
  return !!text && terms.length > 0 && matchRanges(text, clausesFromTerms(terms)).length > 0;
}
