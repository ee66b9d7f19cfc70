/**
 * Stand-ins for a lab's benchmark deployment, for tests: small sites on 127.0.0.1 that need a login (form POST →
 * cookie), serve a few pages (a home page with a link, an item, a CAPTCHA page, an input image) and expose a reset
 * endpoint that counts its calls (and can be told to fail).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";

export interface LoginSite {
  name: string;
  baseUrl: string;
  port: number;
  /** POST /login calls that signed in. */
  logins: number;
  /** Calls of the reset endpoint. */
  resets: number;
  /** Requests for images under /static/ (the tasks' input images). */
  imageFetches: number;
  /** Status the reset endpoint answers with (200 by default). */
  resetStatus: number;
  /** Runs before the reset endpoint answers (a test's way to break the infrastructure mid-preparation). */
  onReset?: () => void | Promise<void>;
  cookieName: string;
  token: string;
  image: Buffer;
  close(): Promise<void>;
}

export const SITE_USER = "agent";
export const SITE_PASSWORD = "s3cret-pass";

function page(title: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title><style>body{font:16px sans-serif;margin:24px} a,button,input{font-size:16px;margin:6px}</style></head><body>${body}</body></html>`;
}

export async function startLoginSite(name: string, item: string): Promise<LoginSite> {
  const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();
  const cookieName = `sess_${name}`;
  const token = `${name}-token-1`;
  const site = { name, logins: 0, resets: 0, imageFetches: 0, resetStatus: 200, cookieName, token, image } as LoginSite;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const signedIn = (req.headers.cookie ?? "").split(/;\s*/).includes(`${cookieName}=${token}`);
    const html = (status: number, title: string, body: string) => res.writeHead(status, { "content-type": "text/html" }).end(page(title, body));
    if (url.pathname === "/reset") {
      site.resets++;
      void Promise.resolve(site.onReset?.()).then(() =>
        res.writeHead(site.resetStatus, { "content-type": "text/plain" }).end(site.resetStatus === 200 ? "reset" : "the database did not come back"),
      );
      return;
    }
    if (url.pathname.startsWith("/static/")) {
      site.imageFetches++;
      if (url.pathname.includes("/missing")) {
        res.writeHead(404, { "content-type": "text/plain" }).end("no such image");
        return;
      }
      res.writeHead(200, { "content-type": "image/png" }).end(image);
      return;
    }
    if (url.pathname === "/login" && req.method === "POST") {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const form = new URLSearchParams(body);
        if (form.get("user") === SITE_USER && form.get("pass") === SITE_PASSWORD) {
          site.logins++;
          res.writeHead(302, { location: "/", "set-cookie": `${cookieName}=${token}; Path=/; HttpOnly` }).end();
        } else
          html(
            401,
            "Sign in",
            `<p>Wrong user name or password</p><form method="post" action="/login"><input id="user" name="user"><input id="pass" name="pass" type="password"><button>Sign in</button></form>`,
          );
      });
      return;
    }
    if (url.pathname === "/login") {
      html(
        200,
        `Sign in to ${name}`,
        `<form method="post" action="/login"><input id="user" name="user" placeholder="User"><input id="pass" name="pass" type="password" placeholder="Password"><button id="go">Sign in</button></form>`,
      );
      return;
    }
    if (!signedIn) {
      res.writeHead(302, { location: "/login" }).end();
      return;
    }
    if (url.pathname === "/") html(200, `${name} home`, `<h1>${name}</h1><p><a href="/item/1">${item}</a></p><p><a href="/captcha">Deals</a></p>`);
    else if (url.pathname === "/item/1") html(200, item, `<h1>${item}</h1><p>In stock.</p>`);
    else if (url.pathname === "/captcha")
      html(
        200,
        "Security check",
        `<h1>One more step</h1><div class="g-recaptcha" data-sitekey="x" style="width:300px;height:80px;border:1px solid #ccc">I'm not a robot</div>`,
      );
    else html(404, "Not found", "<p>no such page</p>");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  site.port = (server.address() as AddressInfo).port;
  site.baseUrl = `http://127.0.0.1:${site.port}`;
  site.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return site;
}

/** A Playwright storage-state file signing in to `site`, as an admin would upload it. */
export function storageStateFileFor(site: LoginSite): string {
  return JSON.stringify({
    cookies: [{ name: site.cookieName, value: site.token, domain: "127.0.0.1", path: "/", expires: -1, httpOnly: true, secure: false, sameSite: "Lax" }],
    origins: [],
  });
}
