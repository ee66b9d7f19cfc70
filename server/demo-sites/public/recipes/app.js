/* Saffron & Thyme: renders the home, search and recipe pages from data.json. Quantities are for `serves` people; the recipe page scales them. */
import data from "./data.json" with { type: "json" };
import { choice, counted, drawing, esc, filterUrl, renderPage, sortLinks, stars } from "../common.js";

var R = data.recipes;
var params = new URLSearchParams(location.search);

function total(r) {
  return r.prep + r.cook;
}
function minutes(m) {
  return m >= 60 ? Math.floor(m / 60) + " h" + (m % 60 ? " " + (m % 60) + " min" : "") : m + " min";
}
function photo(r, cls) {
  return drawing(cls || "photo", r.colors, data.motifs[r.motif]);
}
function link(r) {
  return "recipe.html?id=" + encodeURIComponent(r.id);
}

var NAV = [
  ["index.html", "home", "Home"],
  ["search.html?tag=vegetarian", "veg", "Vegetarian"],
  ["search.html?tag=quick", "quick", "Quick &amp; easy"],
  ["search.html?tag=baking", "baking", "Baking"],
];
function header(active) {
  return (
    '<header class="topbar"><div class="inner">' +
    '<a class="brand" href="index.html"><span class="mark">S</span><span class="name">Saffron <em>&amp;</em> Thyme</span></a>' +
    '<nav class="nav">' +
    NAV.map(function (n) {
      return choice(n[0], n[2], active === n[1], "active");
    }).join("") +
    "</nav>" +
    '<form class="mini-search" action="search.html"><input type="search" name="q" placeholder="Search recipes" aria-label="Search recipes"><button type="submit">Go</button></form>' +
    "</div></header>"
  );
}
var footer = "<footer>Saffron &amp; Thyme is a demo site bundled with Verdict. Recipes are written for testing web agents.</footer>";

function card(r) {
  return (
    '<a class="card" href="' +
    link(r) +
    '">' +
    photo(r) +
    '<div class="body">' +
    (r.tags.indexOf("vegetarian") >= 0 ? '<span class="tag">Vegetarian</span>' : "") +
    "<h3>" +
    esc(r.title) +
    '</h3><div class="meta"><span class="stars">' +
    stars(r.rating) +
    "</span><span>" +
    r.rating.toFixed(1) +
    "</span><span>" +
    minutes(total(r)) +
    "</span></div></div></a>"
  );
}

function home() {
  var popular = R.slice()
    .sort(function (a, b) {
      return b.reviews - a.reviews;
    })
    .slice(0, 6);
  return (
    header("home") +
    '<main class="wrap">' +
    '<section class="hero"><h1>Good food for ordinary evenings</h1><p>' +
    R.length +
    " tested recipes, from ten-minute pasta to a slow Sunday stew. Search by dish or by what is in the cupboard.</p>" +
    '<form action="search.html" role="search"><input type="search" name="q" placeholder="Search recipes, e.g. lentil" aria-label="Search recipes"><button type="submit">Search</button></form>' +
    '<div class="deco">' +
    data.motifs.bowl.replace('stroke="#fff"', 'stroke="#c2562b"') +
    "</div></section>" +
    '<div class="chips"><a class="chip" href="search.html?tag=vegetarian">Vegetarian</a><a class="chip" href="search.html?tag=quick">Under 30 minutes</a>' +
    '<a class="chip" href="search.html?tag=soup">Soups</a><a class="chip" href="search.html?tag=baking">Baking</a><a class="chip" href="search.html?tag=dessert">Desserts</a></div>' +
    '<h2 class="section">Popular this week</h2><div class="grid">' +
    popular.map(card).join("") +
    "</div>" +
    '<h2 class="section">Just added</h2><div class="grid">' +
    R.slice(-3).map(card).join("") +
    "</div></main>" +
    footer
  );
}

function matches(r, q, tag) {
  if (tag === "quick" && total(r) > 30) return false;
  if (tag && tag !== "quick" && r.tags.indexOf(tag) < 0) return false;
  if (!q) return true;
  var hay = (
    r.title +
    " " +
    r.blurb +
    " " +
    r.tags.join(" ") +
    " " +
    r.ingredients
      .map(function (i) {
        return i[2];
      })
      .join(" ")
  ).toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .every(function (w) {
      return hay.indexOf(w) >= 0;
    });
}

function search() {
  var q = (params.get("q") || "").trim();
  var tag = params.get("tag") || "";
  var sort = params.get("sort") || "relevance";
  var found = R.filter(function (r) {
    return matches(r, q, tag);
  });
  if (sort === "rating")
    found.sort(function (a, b) {
      return b.rating - a.rating || b.reviews - a.reviews;
    });
  if (sort === "time")
    found.sort(function (a, b) {
      return total(a) - total(b);
    });
  function url(over) {
    return filterUrl("search.html", { q: q, tag: tag, sort: sort }, over, "relevance");
  }
  var tags = [
    ["vegetarian", "Vegetarian"],
    ["quick", "Under 30 minutes"],
    ["soup", "Soups"],
    ["baking", "Baking"],
    ["dessert", "Desserts"],
  ];
  var title = q
    ? "Recipes for “" + esc(q) + "”"
    : tag
      ? esc(
          tags
            .filter(function (t) {
              return t[0] === tag;
            })
            .map(function (t) {
              return t[1];
            })[0] || tag,
        ) + " recipes"
      : "All recipes";
  var active = tag === "vegetarian" ? "veg" : tag;
  return (
    header(active) +
    '<main class="wrap"><div class="results-head"><h1>' +
    title +
    "</h1><span>" +
    counted(found.length, "recipe") +
    "</span></div>" +
    '<div class="chips">' +
    tags
      .map(function (t) {
        var on = tag === t[0];
        return '<a class="chip' + (on ? " on" : "") + '" href="' + url({ tag: on ? "" : t[0] }) + '">' + t[1] + "</a>";
      })
      .join("") +
    "</div>" +
    '<div class="sortbar">Sort by ' +
    sortLinks(
      [
        ["relevance", "Best match"],
        ["rating", "Top rated"],
        ["time", "Quickest"],
      ],
      sort,
      url,
    ) +
    "</div>" +
    (found.length
      ? '<div class="list">' +
        found
          .map(function (r) {
            return (
              '<a class="row" href="' +
              link(r) +
              '">' +
              photo(r) +
              '<div class="body"><h3>' +
              esc(r.title) +
              "</h3><p>" +
              esc(r.blurb) +
              '</p><div class="meta"><span class="stars">' +
              stars(r.rating) +
              "</span><span>" +
              r.rating.toFixed(1) +
              " (" +
              r.reviews +
              " reviews)</span><span>Total " +
              minutes(total(r)) +
              "</span><span>Serves " +
              r.serves +
              "</span></div></div></a>"
            );
          })
          .join("") +
        "</div>"
      : '<div class="empty">No recipes match. Try a broader word such as “soup” or “chicken”.</div>') +
    "</main>" +
    footer
  );
}

function fmtQty(x) {
  if (x === null) return "";
  var whole = Math.floor(x + 1e-9),
    frac = x - whole;
  var fracs = [
    [0.25, "¼"],
    [0.33, "⅓"],
    [0.5, "½"],
    [0.67, "⅔"],
    [0.75, "¾"],
  ];
  for (var i = 0; i < fracs.length; i++) if (Math.abs(frac - fracs[i][0]) < 0.04) return (whole || "") + fracs[i][1];
  return x >= 10 ? String(Math.round(x)) : String(Math.round(x * 10) / 10);
}

function recipe() {
  var r = R.filter(function (x) {
    return x.id === params.get("id");
  })[0];
  if (!r)
    return (
      header("") + '<main class="wrap"><div class="empty">We could not find that recipe. <a href="index.html">Back to all recipes</a></div></main>' + footer
    );
  document.title = r.title + " · Saffron & Thyme";
  var reviews = [
    ["Sam", 5, "Made this twice this week. The timings are spot on."],
    ["Ines", 4, "Lovely. I added a little more salt than suggested."],
    ["Theo", 5, "A keeper: simple, quick and the family asked for seconds."],
  ];
  return (
    header("") +
    '<main class="wrap"><div class="crumbs"><a href="index.html">Home</a> › <a href="search.html?tag=' +
    r.tags[0] +
    '">' +
    esc(r.tags[0]) +
    "</a> › " +
    esc(r.title) +
    "</div>" +
    '<div class="recipe-head"><div><h1>' +
    esc(r.title) +
    '</h1><p class="lede">' +
    esc(r.blurb) +
    '</p><div class="meta"><span class="stars">' +
    stars(r.rating) +
    "</span><span>" +
    r.rating.toFixed(1) +
    " · " +
    r.reviews +
    ' reviews</span></div><p class="byline">Recipe by ' +
    esc(r.author) +
    "</p>" +
    '<button class="save-btn" id="save">♡ Save recipe</button><button class="save-btn" id="print" onclick="window.print()">Print</button></div>' +
    photo(r, "hero-photo") +
    "</div>" +
    '<div class="facts"><div class="fact"><div class="k">Prep</div><div class="v">' +
    minutes(r.prep) +
    '</div></div><div class="fact"><div class="k">Cook</div><div class="v">' +
    minutes(r.cook) +
    '</div></div><div class="fact"><div class="k">Total</div><div class="v">' +
    minutes(total(r)) +
    '</div></div><div class="fact"><div class="k">Serves</div><div class="v">' +
    r.serves +
    "</div></div></div>" +
    '<div class="columns"><div><section class="panel"><h2>Ingredients</h2><div class="servings">Servings <button id="less" aria-label="Fewer servings">−</button><output id="count">' +
    r.serves +
    '</output><button id="more" aria-label="More servings">+</button></div><ul class="ingredients" id="ingredients"></ul></section>' +
    '<section class="panel" style="margin-top:18px"><h2>Nutrition per serving</h2><table class="nutrition">' +
    Object.keys(r.nutrition)
      .map(function (k) {
        return "<tr><td>" + k + "</td><td>" + r.nutrition[k] + "</td></tr>";
      })
      .join("") +
    "</table></section></div>" +
    '<div><section class="panel"><h2>Method</h2><ol class="method">' +
    r.method
      .map(function (m) {
        return "<li>" + esc(m) + "</li>";
      })
      .join("") +
    "</ol></section>" +
    '<section class="reviews"><h2 class="section">Reviews</h2>' +
    reviews
      .map(function (v) {
        return '<div class="review"><div class="who">' + v[0] + ' <span class="stars">' + stars(v[1]) + "</span></div><div>" + v[2] + "</div></div>";
      })
      .join("") +
    "</section></div></div></main>" +
    footer
  );
}

function wireRecipe() {
  var r = R.filter(function (x) {
    return x.id === params.get("id");
  })[0];
  if (!r) return;
  var n = r.serves;
  function draw() {
    document.getElementById("count").textContent = n;
    document.getElementById("ingredients").innerHTML = r.ingredients
      .map(function (i) {
        var q = i[0] === null ? "" : fmtQty((i[0] * n) / r.serves) + (i[1] ? " " + i[1] : "");
        return '<li><span class="qty">' + q + "</span><span>" + esc(i[2]) + "</span></li>";
      })
      .join("");
  }
  document.getElementById("less").onclick = function () {
    if (n > 1) {
      n--;
      draw();
    }
  };
  document.getElementById("more").onclick = function () {
    if (n < 24) {
      n++;
      draw();
    }
  };
  document.getElementById("save").onclick = function () {
    this.classList.toggle("saved");
    this.textContent = this.classList.contains("saved") ? "♥ Saved" : "♡ Save recipe";
  };
  draw();
}

renderPage({ home: [home], search: [search], recipe: [recipe, wireRecipe] });
var box = document.querySelector('.mini-search input[name="q"]');
if (box && params.get("q")) box.value = params.get("q");
