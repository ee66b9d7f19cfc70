/**
 * The README is the front door and docs/ holds the rest: the README stays short and keeps the two commands a newcomer
 * needs, every relative link in the README and under docs/ leads to a file that exists (and to a heading that exists
 * when it names one), and every page under docs/ can be found from the README's map, so a page added later is never
 * orphaned.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** Every file under docs/, as repository paths (`docs/guide/importing.md`). */
function docsFiles(): string[] {
  return fs
    .readdirSync(path.join(root, "docs"), { recursive: true, encoding: "utf8" })
    .map((f) => path.posix.join("docs", f.split(path.sep).join("/")))
    .filter((f) => fs.statSync(path.join(root, f)).isFile());
}

const markdownPages = () => ["README.md", ...docsFiles().filter((f) => f.endsWith(".md"))];

/** The text outside fenced code blocks and inline code spans, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Targets of inline links and images: `[text](target)`, `![alt](target "title")`. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of prose(markdown.replace(/`([^`\n]*)`/g, "$1")).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** What is wrong with each relative link of a page: a file that does not exist, or an anchor its target lacks. */
function brokenLinks(page: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not ours to check
    const [file, anchor] = target.split("#") as [string, string | undefined];
    if (file === "") {
      if (!headingAnchors(markdown).has(anchor ?? "")) broken.push(`${page}: ${target} (no heading #${anchor} on the page)`);
      continue;
    }
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(file)));
    if (resolved.startsWith("..") || !fs.existsSync(path.join(root, resolved))) {
      broken.push(`${page}: ${target} (no file ${resolved})`);
    } else if (anchor !== undefined && resolved.endsWith(".md") && !headingAnchors(read(resolved)).has(anchor)) {
      broken.push(`${page}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  return broken;
}

/** The repository paths the README's docs map links to. */
function docsMap(readme: string): Set<string> {
  const start = readme.indexOf("<!-- docs-map:start -->");
  const end = readme.indexOf("<!-- docs-map:end -->");
  expect(start, "README.md lacks the docs-map markers").toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  return new Set(linkTargets(readme.slice(start, end)).map((t) => path.posix.normalize(t.split("#")[0]!)));
}

describe("README.md", () => {
  const readme = read("README.md");

  it("is a front door of at most 150 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(150);
  });

  it("keeps the two commands: one installs, builds and starts the dashboard with demo data; npm test checks everything", () => {
    const blocks = [...readme.matchAll(/^```(?:bash|sh)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    const commands = blocks
      .flatMap((b) => b.split("\n"))
      .map((line) => line.replace(/#.*$/, "").trim())
      .filter(Boolean);
    expect(commands.slice(0, 2)).toEqual(["./scripts/start.sh", "npm test"]);
    expect(fs.existsSync(path.join(root, "scripts/start.sh"))).toBe(true);
  });
});

describe("links in README.md and docs/", () => {
  it("all resolve: every relative link names a file that exists, and a heading that exists when it has an anchor", () => {
    const pages = markdownPages();
    expect(pages.length).toBeGreaterThan(20);
    expect(pages.flatMap((page) => brokenLinks(page, read(page)))).toEqual([]);
  });

  it("a broken file or anchor is found, links in code are not links, and anchors follow GitHub's spelling", () => {
    const page = "docs/guide/example.md";
    const text = [
      "# Example",
      "## Object storage (S3)",
      "## Trajectories stored twice: `dedupe`",
      "[fine](#object-storage-s3) [fine too](#trajectories-stored-twice-dedupe) [up](../security.md#the-web-layer)",
      "[gone](../nowhere.md) [no heading](../security.md#no-such-heading) [own](#not-here) ![pic](../screenshot-player.png)",
      "`[in code](../nowhere-either.md)`",
      "```",
      "[in a block](../nor-here.md)",
      "```",
      "[web](https://example.org/x.md)",
    ].join("\n");
    expect(headingAnchors(text)).toEqual(new Set(["example", "object-storage-s3", "trajectories-stored-twice-dedupe"]));
    expect(brokenLinks(page, text)).toEqual([
      "docs/guide/example.md: ../nowhere.md (no file docs/nowhere.md)",
      "docs/guide/example.md: ../security.md#no-such-heading (no heading #no-such-heading in docs/security.md)",
      "docs/guide/example.md: #not-here (no heading #not-here on the page)",
    ]);
  });
});

describe("the docs map", () => {
  const readme = read("README.md");

  it("lists every markdown page under docs/ (add a row for a new page to the map in README.md)", () => {
    const listed = docsMap(readme);
    const pages = docsFiles().filter((f) => f.endsWith(".md"));
    expect(pages.filter((p) => !listed.has(p))).toEqual([]);
  });

  it("leaves no other file under docs/ unlinked: pictures, records and schemas are linked from the README or a page", () => {
    const linked = new Set(
      markdownPages().flatMap((page) =>
        linkTargets(read(page)).map((t) => path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(t.split("#")[0]!)))),
      ),
    );
    expect(docsFiles().filter((f) => !f.endsWith(".md") && !linked.has(f))).toEqual([]);
  });
});
