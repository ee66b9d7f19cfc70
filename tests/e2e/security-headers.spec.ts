/**
 * Web-layer protections that only the built app shows (`next start`): response headers and the page CSP
 * (L2), the sign-in redirect (M5, and its dot-segment form from the second review, N4, signed in and through the
 * sign-in page), refusal of unknown Host names (M6), and the connection's address being the one sign-in records,
 * whatever X-Forwarded-For a client sends (M4).
 */
import { expect, test } from "@playwright/test";
import Database from "better-sqlite3";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { account } from "./accounts";

test.describe("security headers and CSP", () => {
  test("pages carry a nonce CSP and framing/sniffing/referrer headers, and still run", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    const res = await page.goto("/trajectories");
    expect(res?.status()).toBe(200);
    const h = res!.headers();
    expect(h["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"]).not.toContain("'unsafe-inline' 'nonce");
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["referrer-policy"]).toBe("same-origin");
    expect(h["x-powered-by"]).toBeUndefined();
    // Next's scripts ran under the policy (they define window.next when the app boots).
    await page.waitForFunction(() => "next" in window, undefined, { timeout: 15_000 });
    expect(violations).toEqual([]);
  });

  test("API responses are nosniff with a deny-all policy", async ({ request }) => {
    const res = await request.get("/api/trpc/accounts.session");
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    expect(res.headers()["content-security-policy"]).toContain("default-src 'none'");
    expect(res.headers()["x-powered-by"]).toBeUndefined();
  });
});

/** A listener standing for the attacker's site: it records every request that reaches it. */
async function attackerSite(): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "Content-Type": "text/plain" }).end("attacker");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function homeUrl(baseURL: string): RegExp {
  return new RegExp(`^${baseURL.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/(annotate|trajectories|users)?(\\?.*)?$`);
}

test.describe("sign-in redirect", () => {
  test("a signed-in visit to /sign-in?next=/\\host stays on this site", async ({ page, baseURL }) => {
    const attacker = await attackerSite();
    try {
      // The last two collapse to //host once the URL parser removes the dot segment (security review 2, N4).
      for (const next of [
        "/%5C127.0.0.1:9/pwned",
        "//127.0.0.1:9/pwned",
        "/%2F127.0.0.1:9/pwned",
        `/.%2F%2F127.0.0.1:${attacker.port}/pwned`,
        `/./%2F127.0.0.1:${attacker.port}/pwned`,
      ]) {
        await page.goto(`/sign-in?next=${next}`);
        await expect(page).toHaveURL(homeUrl(baseURL!));
      }
      expect(attacker.hits).toEqual([]);
    } finally {
      await attacker.close();
    }
  });

  test.describe("signed out", () => {
    test.use({ storageState: { cookies: [], origins: [] } });

    test("signing in through the page with next=/.%2F%2Fhost lands on this site, never on the other one", async ({ page, baseURL }) => {
      const attacker = await attackerSite();
      try {
        const a = account("annotator3");
        await page.goto(`/sign-in?next=/.%2F%2F127.0.0.1:${attacker.port}/pwned-signed-out`);
        await page.getByLabel("Email").fill(a.email);
        await page.getByLabel("Password").fill(a.password);
        await page.getByRole("button", { name: "Sign in" }).click();
        await expect(page).toHaveURL(homeUrl(baseURL!));
        // Signed in (a session cookie for this site), on one of its pages, and the attacker's site saw nothing.
        expect((await page.context().cookies(baseURL!)).some((c) => /session_token$/.test(c.name))).toBe(true);
        expect(attacker.hits).toEqual([]);
      } finally {
        await attacker.close();
      }
    });
  });
});

test.describe("host names", () => {
  test("requests addressed to an unknown name are refused (DNS rebinding)", async ({ request, baseURL }) => {
    const port = new URL(baseURL!).port;
    const a = account("admin");
    const signIn = await request.post("/api/auth/sign-in/email", {
      headers: { Host: `rebind.attacker.example:${port}`, Origin: `http://rebind.attacker.example:${port}`, "Content-Type": "application/json" },
      data: { email: a.email, password: a.password },
    });
    expect(signIn.status()).toBe(421);
    const page = await request.get("/trajectories", { headers: { Host: `rebind.attacker.example:${port}` } });
    expect(page.status()).toBe(421);
  });

  test("sign-in records the connection's address, not the X-Forwarded-For a client sends", async ({ playwright, baseURL }) => {
    const fresh = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    const a = account("annotator3");
    const res = await fresh.post("/api/auth/sign-in/email", {
      headers: { "X-Forwarded-For": "10.9.8.7", Origin: baseURL!, "Content-Type": "application/json" },
      data: { email: a.email, password: a.password },
    });
    expect(res.status()).toBe(200);
    const db = new Database(path.join(process.env.VERDICT_E2E_DIR!, "verdict.db"), { readonly: true });
    try {
      const row = db
        .prepare("SELECT s.ip_address AS ip FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ? ORDER BY s.created_at DESC LIMIT 1")
        .get(a.email) as { ip: string | null };
      expect(row.ip).toBe("127.0.0.1");
    } finally {
      db.close();
      await fresh.dispose();
    }
  });
});
