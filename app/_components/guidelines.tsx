/**
 * A campaign's guidelines, written in a small subset of markdown (headings, bullet and numbered lists, **bold**,
 * paragraphs), rendered as React elements: the text is never inserted as HTML, so guidelines cannot carry
 * scripts into the labelling page.
 */
import type { ReactNode } from "react";

function inline(text: string): ReactNode[] {
  const parts = text.split(/(\*\*[^*]+\*\*|`[^`]+`)/g);
  return parts.map((p, i) => {
    if (p.startsWith("**") && p.endsWith("**") && p.length > 4) return <strong key={i}>{p.slice(2, -2)}</strong>;
    if (p.startsWith("`") && p.endsWith("`") && p.length > 2)
      return (
        <code key={i} className="rounded bg-zinc-100 px-0.5">
          {p.slice(1, -1)}
        </code>
      );
    return p;
  });
}

export function GuidelinesText({ text }: { text: string }) {
  const blocks: ReactNode[] = [];
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (!line.trim()) {
      i++;
      continue;
    }
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    if (heading) {
      const size = heading[1]!.length === 1 ? "text-[14px]" : "text-[13px]";
      blocks.push(
        <p key={i} className={`${size} mt-1 font-semibold text-zinc-800`}>
          {inline(heading[2]!)}
        </p>,
      );
      i++;
      continue;
    }
    const bullet = /^\s*[-*]\s+/;
    const numbered = /^\s*\d+\.\s+/;
    if (bullet.test(line) || numbered.test(line)) {
      const ordered = numbered.test(line);
      const items: string[] = [];
      while (i < lines.length && (ordered ? numbered : bullet).test(lines[i]!)) {
        let item = lines[i]!.replace(ordered ? numbered : bullet, "");
        i++;
        // Continuation lines (indented, not a new item) belong to the item.
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]!) && !bullet.test(lines[i]!) && !numbered.test(lines[i]!)) item += ` ${lines[i++]!.trim()}`;
        items.push(item);
      }
      const List = ordered ? "ol" : "ul";
      blocks.push(
        <List key={i} className={`${ordered ? "list-decimal" : "list-disc"} ml-5 flex flex-col gap-0.5`}>
          {items.map((it, k) => (
            <li key={k}>{inline(it)}</li>
          ))}
        </List>,
      );
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() && !/^(#{1,3})\s/.test(lines[i]!) && !bullet.test(lines[i]!) && !numbered.test(lines[i]!))
      para.push(lines[i++]!.trim());
    blocks.push(<p key={i}>{inline(para.join(" "))}</p>);
  }
  return <div className="flex flex-col gap-1.5 text-[12.5px] leading-relaxed text-zinc-700">{blocks}</div>;
}

/**
 * The guidelines over the page, on a dimmed backdrop (a click outside or Close shuts them; `g` is the labelling pages'
 * key for both); `version` is named in the title when given.
 */
export function GuidelinesDialog({ text, version, onClose }: { text: string; version?: number; onClose: () => void }) {
  return (
    <div
      role="dialog"
      aria-label="Guidelines"
      className="fixed inset-0 z-50 flex items-start justify-center bg-zinc-900/40 p-6"
      onClick={onClose}
      data-testid="guidelines"
    >
      <div className="panel max-h-[85vh] w-full max-w-2xl overflow-y-auto px-5 py-4 shadow-lg" onClick={(e) => e.stopPropagation()}>
        <div className="mb-2 flex items-center justify-between">
          <span className="section-title">Guidelines{version === undefined ? "" : ` · version ${version}`}</span>
          <button type="button" className="btn h-7" onClick={onClose}>
            Close <kbd className="kbd">g</kbd>
          </button>
        </div>
        <GuidelinesText text={text} />
      </div>
    </div>
  );
}
