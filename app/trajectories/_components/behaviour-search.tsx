"use client";
/**
 * The behaviour search box above the trajectory list: what agents thought, did, saw and answered, and what people
 * and judges said of it. The query goes into the URL (`?search=…`), so a search is a link like any filter; results
 * come sorted by relevance. A query the server cannot read comes back as `error` and is shown here, in words.
 */
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
import { trajectoryListSearch, type TrajectoryListQuery } from "@/server/domain/trajectory-list-query";
import { PageForm } from "../../_components/field";

const EXAMPLES: [string, string][] = [
  ["captcha", "a word anywhere: intent, thoughts, actions, element text, URLs, answers, errors, notes, rationales"],
  [`"add to cart"`, "a phrase: these words, in this order"],
  [`thought:"login wall"`, "only in thoughts (also action:, url:, text: for element text, answer:, error:, intent:, note:)"],
  ["url:checkout action:type", "every part must hold, each anywhere in the trajectory"],
  ["check*", "words starting with check"],
  ["captcha -login", "trajectories with captcha and without login"],
  ["rationale:hallucinated judge:success human:failure", "judges' rationales and verdicts, the human label (researchers and admins)"],
];

export function BehaviourSearch({ query, error, researcher }: { query: TrajectoryListQuery; error?: string; researcher: boolean }) {
  const router = useRouter();
  const pathname = usePathname();
  const [pending, startTransition] = useTransition();
  const [text, setText] = useState(query.search ?? "");
  const [help, setHelp] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setText(query.search ?? ""), [query.search]);

  const go = (search: string | undefined) => {
    const sort = search ? (query.search ? query.sort : "relevance") : query.sort === "relevance" ? "id" : query.sort;
    const dir = search && !query.search ? "desc" : query.dir;
    startTransition(() => router.push(`${pathname}${trajectoryListSearch({ ...query, search, sort, dir, page: 1 })}`));
  };

  // "/" focuses the search from anywhere on the list, as in most tools with one search box.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.key !== "/" || e.metaKey || e.ctrlKey || e.altKey || target?.closest("input, textarea, select, [contenteditable]")) return;
      e.preventDefault();
      input.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <div className="flex flex-col gap-1.5" data-testid="behaviour-search">
      <PageForm
        role="search"
        aria-label="Behaviour search"
        className="flex items-center gap-2"
        onSubmit={() => {
          go(text.trim() || undefined);
        }}
      >
        <input
          ref={input}
          type="search"
          name="search"
          aria-label="Search behaviour"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "behaviour-search-error" : undefined}
          placeholder={`Search behaviour: captcha, thought:"login wall", url:checkout${researcher ? ", judge:success human:failure" : ""}…  (press /)`}
          className={`field min-w-0 flex-1 font-mono text-[12.5px] ${error ? "border-rose-400" : ""}`}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape" && text) {
              e.preventDefault();
              setText("");
              if (query.search) go(undefined);
            }
          }}
        />
        <button type="submit" className="btn" disabled={pending}>
          {pending ? "Searching…" : "Search"}
        </button>
        {query.search && (
          <button type="button" className="btn" onClick={() => go(undefined)}>
            Clear search
          </button>
        )}
        <button type="button" className="btn" aria-expanded={help} aria-controls="behaviour-search-help" onClick={() => setHelp((v) => !v)}>
          Syntax
        </button>
      </PageForm>
      {error && (
        <p
          id="behaviour-search-error"
          role="alert"
          className="rounded-md border border-rose-200 bg-rose-50 px-2.5 py-1.5 text-[12.5px] text-rose-900"
          data-testid="search-error"
        >
          {error}
        </p>
      )}
      {help && (
        <div id="behaviour-search-help" className="panel px-3 py-2 text-[12.5px]" data-testid="search-help">
          <table>
            <tbody>
              {EXAMPLES.filter(([q]) => researcher || !q.startsWith("rationale:")).map(([q, what]) => (
                <tr key={q}>
                  <td className="py-0.5 pr-4 align-top whitespace-nowrap">
                    <button type="button" className="font-mono text-indigo-700 hover:underline" onClick={() => setText(q)}>
                      {q}
                    </button>
                  </td>
                  <td className="py-0.5 text-zinc-700">{what}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="mt-1.5 text-zinc-500">
            Words match whole words, any case, without stemming; punctuation separates words (url:shop.com/cart is the phrase &ldquo;shop com cart&rdquo;).
            Results are sorted by how many places match; each row shows where, and opens the player at that step.
          </p>
        </div>
      )}
    </div>
  );
}
