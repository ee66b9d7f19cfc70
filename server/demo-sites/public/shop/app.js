/* Trailhead Supply: catalogue, product, cart and checkout pages, rendered from data.json (prices in US dollars). The cart lives in localStorage. */
import data from "./data.json" with { type: "json" };
import { choice, counted, drawing, esc, filterUrl, renderPage, sortLinks, stars } from "../common.js";

var P = data.products,
  CATS = data.categories;
var params = new URLSearchParams(location.search);
var FREE_SHIPPING_FROM = 75,
  SHIPPING = 6.95,
  CART_KEY = "trailhead-cart";

function money(x) {
  return "$" + x.toFixed(2);
}
function byId(id) {
  return P.filter(function (p) {
    return p.id === id;
  })[0];
}
function art(p, cls) {
  return drawing(cls, p.colors, data.art[p.art]);
}

function readCart() {
  try {
    return JSON.parse(localStorage.getItem(CART_KEY) || "[]");
  } catch {
    return [];
  }
}
function writeCart(c) {
  localStorage.setItem(CART_KEY, JSON.stringify(c));
}
function cartCount() {
  return readCart().reduce(function (n, l) {
    return n + l.qty;
  }, 0);
}
function addToCart(id, qty) {
  var c = readCart(),
    line = c.filter(function (l) {
      return l.id === id;
    })[0];
  if (line) line.qty += qty;
  else c.push({ id: id, qty: qty });
  writeCart(c);
}

var logo = '<svg viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="#e07a2f"/><path d="M5 24l8-12 5 7 3-4 6 9z" fill="#fff"/></svg>';
function header(activeCat) {
  return (
    '<div class="promo">Free shipping on orders of $75 or more · 60-day returns</div>' +
    '<header class="topbar"><div class="inner"><a class="brand" href="index.html">' +
    logo +
    "Trailhead Supply</a>" +
    '<form class="search" action="index.html" role="search"><input type="search" name="q" placeholder="Search gear" aria-label="Search gear" value="' +
    esc(params.get("q") || "") +
    '"><button type="submit">Search</button></form>' +
    '<a class="cart-link" href="cart.html">Cart <span class="badge" id="cart-count">' +
    cartCount() +
    "</span></a></div></header>" +
    '<nav class="catnav"><div class="inner">' +
    choice("index.html", "All gear", !activeCat) +
    CATS.map(function (c) {
      return choice("index.html?cat=" + c[0], c[1], activeCat === c[0]);
    }).join("") +
    "</div></nav>"
  );
}
var footer = "<footer>Trailhead Supply is a demo shop bundled with Verdict. Nothing here is for sale and no order is ever sent.</footer>";

function refreshBadge() {
  var b = document.getElementById("cart-count");
  if (b) b.textContent = cartCount();
}
function toast(text) {
  var old = document.querySelector(".toast");
  if (old) old.remove();
  var t = document.createElement("div");
  t.className = "toast";
  t.setAttribute("role", "status");
  t.textContent = text;
  document.body.appendChild(t);
  setTimeout(function () {
    t.remove();
  }, 2500);
}

function catalogue() {
  var cat = params.get("cat") || "",
    q = (params.get("q") || "").trim().toLowerCase(),
    sort = params.get("sort") || "featured";
  var stockOnly = params.get("stock") === "1";
  var list = P.filter(function (p) {
    if (cat && p.cat !== cat) return false;
    if (stockOnly && !p.stock) return false;
    if (!q) return true;
    var hay = (p.name + " " + p.desc + " " + p.cat).toLowerCase();
    return q.split(/\s+/).every(function (w) {
      return hay.indexOf(w) >= 0;
    });
  });
  if (sort === "price-asc")
    list.sort(function (a, b) {
      return a.price - b.price;
    });
  if (sort === "price-desc")
    list.sort(function (a, b) {
      return b.price - a.price;
    });
  if (sort === "rating")
    list.sort(function (a, b) {
      return b.rating - a.rating;
    });
  function url(over) {
    return filterUrl("index.html", { cat: cat, q: params.get("q") || "", sort: sort, stock: stockOnly ? "1" : "" }, over, "featured");
  }
  var title = q
    ? "Results for “" + esc(params.get("q")) + "”"
    : cat
      ? CATS.filter(function (c) {
          return c[0] === cat;
        })[0][1]
      : "All gear";
  var sorts = [
    ["featured", "Featured"],
    ["price-asc", "Price: low to high"],
    ["price-desc", "Price: high to low"],
    ["rating", "Top rated"],
  ];
  return (
    header(cat) +
    '<main class="wrap"><div class="layout"><aside class="side"><h3>Category</h3>' +
    '<a class="filter' +
    (!cat ? " on" : "") +
    '" href="' +
    url({ cat: "" }) +
    '">All <span class="count">' +
    P.length +
    "</span></a>" +
    CATS.map(function (c) {
      var n = P.filter(function (p) {
        return p.cat === c[0];
      }).length;
      return '<a class="filter' + (cat === c[0] ? " on" : "") + '" href="' + url({ cat: c[0] }) + '">' + c[1] + ' <span class="count">' + n + "</span></a>";
    }).join("") +
    "<hr><h3>Availability</h3>" +
    '<a class="filter' +
    (stockOnly ? " on" : "") +
    '" href="' +
    url({ stock: stockOnly ? "" : "1" }) +
    '">' +
    (stockOnly ? "☑" : "☐") +
    " In stock only</a></aside>" +
    '<section><div class="toolbar"><h1>' +
    title +
    '<span class="n">' +
    counted(list.length, "item") +
    "</span></h1>" +
    '<div class="sorts">Sort ' +
    sortLinks(sorts, sort, url) +
    "</div></div>" +
    (list.length
      ? '<div class="products">' +
        list
          .map(function (p) {
            return (
              '<div class="product"><a href="product.html?id=' +
              p.id +
              '" aria-label="' +
              esc(p.name) +
              '">' +
              art(p, "img") +
              '</a><div class="info"><a class="name" href="product.html?id=' +
              p.id +
              '">' +
              esc(p.name) +
              '</a><div class="rating">' +
              stars(p.rating) +
              " <span>" +
              p.rating.toFixed(1) +
              " (" +
              p.reviews +
              ')</span></div><div class="price">' +
              money(p.price) +
              (p.was ? '<span class="was">' + money(p.was) + "</span>" : "") +
              "</div>" +
              (p.stock
                ? '<div class="stock">In stock</div><button class="add" data-id="' + p.id + '">Add to cart</button>'
                : '<div class="stock out">Out of stock</div><button class="add" disabled>Sold out</button>') +
              "</div></div>"
            );
          })
          .join("") +
        "</div>"
      : '<div class="empty">Nothing matches that search. Try “tent” or “jacket”.</div>') +
    "</section></div></main>" +
    footer
  );
}

function wireCatalogue() {
  Array.prototype.forEach.call(document.querySelectorAll("button.add[data-id]"), function (b) {
    b.addEventListener("click", function () {
      addToCart(b.getAttribute("data-id"), 1);
      refreshBadge();
      toast("Added " + byId(b.getAttribute("data-id")).name + " to your cart");
    });
  });
}

function product() {
  var p = byId(params.get("id"));
  if (!p)
    return header("") + '<main class="wrap"><div class="empty">That product does not exist. <a href="index.html">Back to the shop</a></div></main>' + footer;
  document.title = p.name + " · Trailhead Supply";
  var cat = CATS.filter(function (c) {
    return c[0] === p.cat;
  })[0];
  return (
    header(p.cat) +
    '<main class="wrap"><div class="crumbs"><a href="index.html">Shop</a> › <a href="index.html?cat=' +
    cat[0] +
    '">' +
    cat[1] +
    "</a> › " +
    esc(p.name) +
    "</div>" +
    '<div class="detail">' +
    art(p, "img") +
    "<div><h1>" +
    esc(p.name) +
    '</h1><div class="rating">' +
    stars(p.rating) +
    " <span>" +
    p.rating.toFixed(1) +
    " · " +
    p.reviews +
    " reviews</span></div>" +
    '<div class="price">' +
    money(p.price) +
    (p.was ? '<span class="was">' + money(p.was) + "</span>" : "") +
    "</div><p>" +
    esc(p.desc) +
    "</p>" +
    (p.stock
      ? '<div class="buy"><div class="qty"><button id="minus" aria-label="Decrease quantity">−</button><output id="qty">1</output><button id="plus" aria-label="Increase quantity">+</button></div><button class="add" id="add">Add to cart</button></div>'
      : '<div class="buy"><button class="add" disabled>Out of stock</button></div>') +
    '<table class="specs">' +
    Object.keys(p.specs)
      .map(function (k) {
        return "<tr><th>" + k + "</th><td>" + esc(p.specs[k]) + "</td></tr>";
      })
      .join("") +
    "</table></div></div>" +
    '<section class="reviews"><h2>Customer reviews</h2>' +
    [
      ["Jo", "Did exactly what I hoped on a wet weekend in the hills."],
      ["Marcus", "Solid build quality. Sizing runs true."],
      ["Aiko", "Would buy again; shipping was quick."],
    ]
      .map(function (r) {
        return '<div class="review"><strong>' + r[0] + "</strong> — " + r[1] + "</div>";
      })
      .join("") +
    "</section></main>" +
    footer
  );
}

function wireProduct() {
  var p = byId(params.get("id"));
  if (!p || !p.stock) return;
  var n = 1,
    out = document.getElementById("qty");
  document.getElementById("minus").onclick = function () {
    if (n > 1) out.textContent = --n;
  };
  document.getElementById("plus").onclick = function () {
    if (n < 9) out.textContent = ++n;
  };
  document.getElementById("add").onclick = function () {
    addToCart(p.id, n);
    refreshBadge();
    toast("Added " + n + " × " + p.name + " to your cart");
  };
}

function totals(c) {
  var sub = c.reduce(function (s, l) {
    return s + byId(l.id).price * l.qty;
  }, 0);
  var ship = sub === 0 || sub >= FREE_SHIPPING_FROM ? 0 : SHIPPING;
  return { sub: sub, ship: ship, total: sub + ship };
}

function cart() {
  var c = readCart();
  if (!c.length)
    return (
      header("") + '<main class="wrap"><h1>Your cart</h1><div class="empty">Your cart is empty. <a href="index.html">Find some gear</a></div></main>' + footer
    );
  var t = totals(c);
  return (
    header("") +
    '<main class="wrap"><h1>Your cart</h1><div class="cart"><div class="lines">' +
    c
      .map(function (l) {
        var p = byId(l.id);
        return (
          '<div class="line">' +
          art(p, "thumb") +
          '<div><a href="product.html?id=' +
          p.id +
          '"><strong>' +
          esc(p.name) +
          "</strong></a><div>" +
          money(p.price) +
          " each</div></div>" +
          '<div class="qty"><button data-dec="' +
          p.id +
          '" aria-label="Decrease quantity">−</button><output>' +
          l.qty +
          '</output><button data-inc="' +
          p.id +
          '" aria-label="Increase quantity">+</button></div>' +
          "<strong>" +
          money(p.price * l.qty) +
          '</strong><button class="remove" data-remove="' +
          p.id +
          '">Remove</button></div>'
        );
      })
      .join("") +
    '</div><aside class="summary"><h2>Order summary</h2><div class="r"><span>Subtotal</span><strong id="subtotal">' +
    money(t.sub) +
    "</strong></div>" +
    '<div class="r"><span>Shipping</span><strong>' +
    (t.ship ? money(t.ship) : "Free") +
    '</strong></div><div class="r total"><span>Total</span><span id="total">' +
    money(t.total) +
    "</span></div>" +
    '<p class="note">' +
    (t.ship ? "Add " + money(FREE_SHIPPING_FROM - t.sub) + " more for free shipping." : "You qualify for free shipping.") +
    "</p>" +
    '<a class="primary" href="checkout.html">Proceed to checkout</a></aside></div></main>' +
    footer
  );
}

function wireCart() {
  document.body.addEventListener("click", function (e) {
    var el = e.target.closest("button");
    if (!el) return;
    var c = readCart(),
      id;
    if ((id = el.getAttribute("data-inc")))
      c.forEach(function (l) {
        if (l.id === id) l.qty++;
      });
    else if ((id = el.getAttribute("data-dec")))
      c.forEach(function (l) {
        if (l.id === id && l.qty > 1) l.qty--;
      });
    else if ((id = el.getAttribute("data-remove")))
      c = c.filter(function (l) {
        return l.id !== id;
      });
    else return;
    writeCart(c);
    document.getElementById("root").innerHTML = cart();
  });
}

function checkout() {
  var c = readCart();
  if (!c.length) return header("") + '<main class="wrap"><h1>Checkout</h1><div class="empty">Your cart is empty.</div></main>' + footer;
  var t = totals(c);
  return (
    header("") +
    '<main class="wrap"><h1>Checkout</h1><div class="cart"><form class="checkout" id="checkout"><label>Full name<input name="name" autocomplete="off"></label>' +
    '<label>Email<input name="email" type="email" autocomplete="off"></label><label>Address<input name="address" autocomplete="off"></label>' +
    '<button class="primary" type="submit">Place order</button></form><aside class="summary"><h2>Total due</h2><div class="r total"><span>Total</span><span>' +
    money(t.total) +
    "</span></div></aside></div></main>" +
    footer
  );
}

function wireCheckout() {
  var f = document.getElementById("checkout");
  if (!f) return;
  f.addEventListener("submit", function (e) {
    e.preventDefault();
    writeCart([]);
    document.querySelector("main").innerHTML =
      '<h1>Thank you!</h1><div class="empty">This is a demo shop: no order was placed and nothing was charged.</div>';
    refreshBadge();
  });
}

renderPage({ catalogue: [catalogue, wireCatalogue], product: [product, wireProduct], cart: [cart, wireCart], checkout: [checkout, wireCheckout] });
