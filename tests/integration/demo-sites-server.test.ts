/**
 * The demo sites' HTTP server: each page is served from one shell (its title, its name on <body data-page>, the
 * site's app.js module), files come from the public folder, and nothing else is served. In Chromium every page of
 * the three sites draws itself from its data.json without a script error.
 */
import http from "node:http";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../server/browser/launch";
import { loadConfig } from "../../server/config";
import { pageShell, startDemoSites, type DemoSitesServer } from "../../server/demo-sites/server";
import { EgressProxy } from "../../server/services/live/egress-proxy";
import { chromiumSkipReason, titled } from "../helpers/requirements";

/** Every page a site has, with the title it opens with. */
const PAGES: [path: string, page: string, title: string][] = [
  ["/recipes/index.html", "home", "Saffron &amp; Thyme · Recipes"],
  ["/recipes/search.html", "search", "Search · Saffron &amp; Thyme"],
  ["/recipes/recipe.html", "recipe", "Recipe · Saffron &amp; Thyme"],
  ["/shop/index.html", "catalogue", "Trailhead Supply · Outdoor gear"],
  ["/shop/product.html", "product", "Product · Trailhead Supply"],
  ["/shop/cart.html", "cart", "Your cart · Trailhead Supply"],
  ["/shop/checkout.html", "checkout", "Checkout · Trailhead Supply"],
  ["/wiki/index.html", "home", "Tidewater · The encyclopedia of the Wexmoor coast"],
  ["/wiki/article.html", "article", "Article · Tidewater"],
  ["/wiki/search.html", "search", "Search · Tidewater"],
];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(url: string, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end();
  });
}

let sites: DemoSitesServer;
beforeAll(async () => {
  sites = await startDemoSites();
});
afterAll(async () => {
  await sites?.close();
});

describe("demo sites server", () => {
  it("serves each page from the shell with its title, its page name and the site's app.js module", async () => {
    for (const [path, page, title] of PAGES) {
      const res = await request(sites.baseUrl + path + "?id=anything");
      expect(res.status, path).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.headers["cache-control"]).toBe("no-store");
      expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.body));
      expect(res.body).toContain(`<title>${title}</title>`);
      expect(res.body).toContain(`<body data-page="${page}">`);
      expect(res.body).toContain('<div id="root"></div>');
      expect(res.body).toContain('<script type="module" src="app.js"></script>');
      expect(res.body).toContain('<link rel="stylesheet" href="style.css">');
    }
  });

  it("answers a site's own path with its index page, and redirects it without the slash, keeping the query", async () => {
    for (const site of ["recipes", "shop", "wiki"]) {
      const index = await request(`${sites.baseUrl}/${site}/index.html`);
      expect((await request(`${sites.baseUrl}/${site}/`)).body).toBe(index.body);
      const bare = await request(`${sites.baseUrl}/${site}?q=soup`);
      expect(bare.status).toBe(301);
      expect(bare.headers.location).toBe(`/${site}/?q=soup`);
    }
  });

  it("escapes what it writes into the shell", () => {
    const html = pageShell('Fish & "chips" <now>', 'a"b');
    expect(html).toContain("<title>Fish &amp; &quot;chips&quot; &lt;now&gt;</title>");
    expect(html).toContain('<body data-page="a&quot;b">');
  });

  it("serves the sites' files with their types: data as JSON, scripts as JavaScript", async () => {
    const data = await request(`${sites.baseUrl}/recipes/data.json`);
    expect(data.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect((JSON.parse(data.body) as { recipes: { id: string }[] }).recipes.map((r) => r.id)).toContain("shakshuka");
    for (const file of ["/common.js", "/recipes/app.js", "/shop/app.js", "/wiki/app.js"]) {
      const res = await request(sites.baseUrl + file);
      expect(res.status, file).toBe(200);
      expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    }
    expect((await request(`${sites.baseUrl}/shop/style.css`)).headers["content-type"]).toBe("text/css; charset=utf-8");
    expect((await request(`${sites.baseUrl}/`)).body).toContain("Verdict demo sites");
  });

  it("serves nothing else: no other page, no path outside the folder, no other method", async () => {
    const missing = await request(`${sites.baseUrl}/recipes/nope.html`);
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("No page at /recipes/nope.html");
    // server.ts stands beside the public folder: "..%2f" decodes to "../" inside one path segment.
    expect((await request(`${sites.baseUrl}/..%2fserver.ts`)).status).toBe(404);
    expect((await request(`${sites.baseUrl}/%E0%A4%A`)).status).toBe(404);
    expect((await request(`${sites.baseUrl}/shop/cart.html`, "POST")).status).toBe(405);
    const head = await request(`${sites.baseUrl}/shop/cart.html`, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
  });
});

const browserConfig = loadConfig();
const noChromium = chromiumSkipReason();

describe.skipIf(noChromium !== null)(titled("demo sites in Chromium", noChromium), () => {
  let browser: Browser;
  let egress: EgressProxy;
  beforeAll(async () => {
    // As the runner's browser: its user may connect to the egress proxy only.
    egress = await EgressProxy.start({ rules: { allowedDestinations: [`127.0.0.1:${sites.port}`] } });
    browser = await launchChromium({ config: browserConfig, egressProxy: egress.url });
  });
  afterAll(async () => {
    await browser?.close();
    await egress?.close();
  });

  it("draws every page from its data.json with no script error, before the load event", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    const query: Record<string, string> = { recipe: "?id=shakshuka", product: "?id=titanium-pot", article: "?slug=fresnel-lens", search: "?q=lens" };
    for (const [path, name] of PAGES) {
      await page.goto(sites.baseUrl + path + (query[name] ?? ""), { waitUntil: "load" });
      expect(await page.locator("#root > *").count(), path).toBeGreaterThan(0);
    }
    expect(await page.title()).toBe("Search · Tidewater");
    await page.goto(`${sites.baseUrl}/recipes/recipe.html?id=shakshuka`);
    expect(await page.title()).toBe("Shakshuka · Saffron & Thyme");
    await expect.poll(() => page.locator("#ingredients li").count()).toBeGreaterThan(3);
    await page.goto(`${sites.baseUrl}/shop/index.html?cat=tents&sort=price-asc`);
    expect(await page.locator(".sorts a.on").textContent()).toBe("Price: low to high");
    expect(await page.locator(".products .product .name").first().textContent()).toBe("Sparrow Ultralight 1P Tent");
    expect(errors).toEqual([]);
    await page.close();
  });
});
