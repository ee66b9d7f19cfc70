/**
 * HTML pages written as text: the static report's pages and the demo sites' page shells. Everything put into a page
 * from data goes through `escapeHtml`.
 */

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text safe inside an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/**
 * A whole page: UTF-8, the viewport for small screens, the (escaped) title, the head's other tags as given, then the
 * body with its attributes (written as given, e.g. ` data-page="…"`, values escaped by the caller).
 */
export function htmlDocument(page: { title: string; head: string[]; bodyAttributes?: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
${page.head.join("\n")}
</head>
<body${page.bodyAttributes ?? ""}>
${page.body}
</body>
</html>
`;
}
