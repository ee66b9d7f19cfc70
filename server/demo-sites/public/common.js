/*
 * What the three demo sites' app.js modules share: escaping, star ratings, counts, the drawings that stand in for
 * photos, links that mark the current choice, sort and filter links, and drawing the page the shell names on
 * <body data-page>.
 */

export function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
  });
}

export function stars(x) {
  var n = Math.round(x);
  return "★★★★★".slice(0, n) + "☆☆☆☆☆".slice(0, 5 - n);
}

/** An SVG drawing on a two-colour gradient, in a div of the given class. */
export function drawing(cls, colors, svg) {
  return '<div class="' + cls + '" style="background:linear-gradient(135deg,' + colors[0] + "," + colors[1] + ')">' + svg + "</div>";
}

/** A link, with class="on" (or the class given) when it is the current choice. */
export function choice(href, text, current, cls) {
  return '<a href="' + href + '"' + (current ? ' class="' + (cls || "on") + '"' : "") + ">" + text + "</a>";
}

/** Sort links: sorts is a list of [value, label]; url(over) makes the link for a change of the current filters. */
export function sortLinks(sorts, current, url) {
  return sorts
    .map(function (s) {
      return choice(url({ sort: s[0] }), s[1], current === s[0]);
    })
    .join("");
}

/** "1 recipe", "3 recipes". */
export function counted(n, noun) {
  return n + " " + noun + (n === 1 ? "" : "s");
}

/**
 * A link to `file` with the current filters changed by `over`; empty values, and the sort when it is the default,
 * are left out of the query.
 */
export function filterUrl(file, current, over, defaultSort) {
  var v = Object.assign({}, current, over),
    p = new URLSearchParams();
  Object.keys(v).forEach(function (k) {
    if (v[k] && !(k === "sort" && v[k] === defaultSort)) p.set(k, v[k]);
  });
  var qs = p.toString();
  return file + (qs ? "?" + qs : "");
}

/** Draws the page <body data-page> names into #root: pages maps a name to [its HTML, then what wires it up]. */
export function renderPage(pages) {
  var entry = pages[document.body.getAttribute("data-page")];
  if (!entry) return;
  document.getElementById("root").innerHTML = entry[0]();
  if (entry[1]) entry[1]();
}
