/*
 * Tidewater: main page, article and search pages, rendered from data.json. Tidewater is an encyclopedia of the
 * (imaginary) Wexmoor coast: Harrow Point, Brackwater Bay, the Tidewater Railway and their people are invented for
 * Verdict's demo; the Fresnel lens article keeps to well-known facts. Links in the text are written [[slug|text]].
 */
import data from "./data.json" with { type: "json" };
import { counted, esc, renderPage } from "../common.js";

var A = data.articles;
var params = new URLSearchParams(location.search);

function bySlug(slug) {
  return A.filter(function (a) {
    return a.slug === slug;
  })[0];
}
function href(slug) {
  return "article.html?slug=" + encodeURIComponent(slug);
}
/* Escapes text, then turns [[slug|text]] into links. */
function rich(s) {
  return esc(s).replace(/\[\[([a-z0-9-]+)\|([^\]]+)\]\]/g, function (_m, slug, text) {
    return '<a href="' + href(slug) + '">' + text + "</a>";
  });
}
function plain(s) {
  return s.replace(/\[\[[a-z0-9-]+\|([^\]]+)\]\]/g, "$1");
}
function anchor(h) {
  return h
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

function header() {
  return (
    '<header class="topbar"><div class="inner"><a class="logo" href="index.html"><span class="disc">T</span><span class="t">Tidewater<span class="s">The encyclopedia of the Wexmoor coast</span></span></a>' +
    '<form action="search.html" role="search"><input type="search" name="q" placeholder="Search Tidewater" aria-label="Search Tidewater" value="' +
    esc(params.get("q") || "") +
    '"><button type="submit">Search</button></form></div></header>'
  );
}
function sidenav() {
  return (
    '<nav class="sidenav"><h4>Navigation</h4><a href="index.html">Main page</a><a href="search.html?q=">All articles</a><a href="' +
    href("harrow-point-lighthouse") +
    '">Featured article</a><hr><h4>Articles</h4>' +
    A.map(function (a) {
      return '<a href="' + href(a.slug) + '">' + esc(a.title) + "</a>";
    }).join("") +
    "</nav>"
  );
}
var footer = "<footer>Tidewater is a demo encyclopedia bundled with Verdict. Its places and people are invented.</footer>";
function layout(inner) {
  return header() + '<div class="page">' + sidenav() + "<main>" + inner + "</main></div>" + footer;
}

function home() {
  var f = bySlug("harrow-point-lighthouse");
  return layout(
    '<section class="card welcome"><h1>Welcome to Tidewater</h1><p>' +
      A.length +
      " articles about the harbours, lights and railways of the Wexmoor coast.</p></section>" +
      '<div class="cols"><section class="card"><h2>Featured article</h2><p>' +
      rich(f.summary) +
      '</p><p><a href="' +
      href(f.slug) +
      '">Read the full article →</a></p></section>' +
      '<section class="card"><h2>Did you know…</h2><ul><li>… that the granite for <a href="' +
      href("harrow-point-lighthouse") +
      '">Harrow Point Lighthouse</a> came down to the coast by train?</li>' +
      '<li>… that <a href="' +
      href("brackwater-bay") +
      '">Brackwater Bay</a> has held a regatta every August since 1851?</li>' +
      '<li>… that a <a href="' +
      href("fresnel-lens") +
      '">Fresnel lens</a> was first used in a lighthouse in 1823?</li></ul></section></div>' +
      '<section class="card"><h2>All articles</h2><ul>' +
      A.map(function (a) {
        return '<li><a href="' + href(a.slug) + '">' + esc(a.title) + "</a></li>";
      }).join("") +
      "</ul></section>",
  );
}

function article() {
  var a = bySlug(params.get("slug"));
  if (!a) return layout('<article class="article"><h1>Article not found</h1><p>Tidewater has no article with that name. Try the search box.</p></article>');
  document.title = a.title + " · Tidewater";
  var info =
    '<aside class="infobox"><div class="cap">' +
    esc(a.title) +
    "</div>" +
    data.art[a.art] +
    "<table>" +
    a.infobox
      .map(function (r) {
        return "<tr><th>" + esc(r[0]) + "</th><td>" + esc(r[1]) + "</td></tr>";
      })
      .join("") +
    "</table></aside>";
  var toc =
    '<div class="toc"><div class="h">Contents</div><ol>' +
    a.sections
      .map(function (s) {
        return '<li><a href="#' + anchor(s.h) + '">' + esc(s.h) + "</a></li>";
      })
      .join("") +
    '<li><a href="#see-also">See also</a></li></ol></div>';
  return layout(
    '<article class="article"><h1>' +
      esc(a.title) +
      '</h1><div class="from">From Tidewater, the encyclopedia of the Wexmoor coast</div>' +
      info +
      "<p>" +
      rich(a.summary) +
      "</p>" +
      toc +
      a.sections
        .map(function (s) {
          return (
            '<h2 id="' +
            anchor(s.h) +
            '">' +
            esc(s.h) +
            "</h2>" +
            s.p
              .map(function (p) {
                return "<p>" + rich(p) + "</p>";
              })
              .join("")
          );
        })
        .join("") +
      '<h2 id="see-also">See also</h2><ul class="seealso">' +
      a.seeAlso
        .map(function (slug) {
          return '<li><a href="' + href(slug) + '">' + esc(bySlug(slug).title) + "</a></li>";
        })
        .join("") +
      "</ul></article>",
  );
}

function search() {
  var q = (params.get("q") || "").trim();
  var words = q.toLowerCase().split(/\s+/).filter(Boolean);
  var hits = A.map(function (a) {
    var text = plain(
      a.summary +
        " " +
        a.sections
          .map(function (s) {
            return s.h + " " + s.p.join(" ");
          })
          .join(" "),
    );
    var hay = (a.title + " " + text).toLowerCase();
    if (
      !words.every(function (w) {
        return hay.indexOf(w) >= 0;
      })
    )
      return null;
    var i = words.length ? text.toLowerCase().indexOf(words[0]) : 0;
    var snip = text.slice(Math.max(0, i - 60), i + 140);
    return {
      a: a,
      score: words.filter(function (w) {
        return a.title.toLowerCase().indexOf(w) >= 0;
      }).length,
      snip: snip,
    };
  })
    .filter(Boolean)
    .sort(function (x, y) {
      return y.score - x.score;
    });
  function highlight(s) {
    var out = esc(s);
    words.forEach(function (w) {
      out = out.replace(new RegExp("(" + w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + ")", "ig"), "<mark>$1</mark>");
    });
    return out;
  }
  return layout(
    '<section class="article"><h1>' +
      (q ? "Search results for “" + esc(q) + "”" : "All articles") +
      '</h1><div class="from">' +
      counted(hits.length, "article") +
      "</div>" +
      (hits.length
        ? hits
            .map(function (h) {
              return '<div class="result"><a href="' + href(h.a.slug) + '">' + esc(h.a.title) + "</a><p>…" + highlight(h.snip) + "…</p></div>";
            })
            .join("")
        : "<p>No article contains all of those words.</p>") +
      "</section>",
  );
}

renderPage({ home: [home], article: [article], search: [search] });
