/**
 * The browser the page benches (player, compare, first-view, pages) measure with: the configured Chromium, headless,
 * without the background work (updates, sync, networking) that would add noise, and a context signed in to the app.
 */
import { chromium, type Browser, type BrowserContext } from "playwright";
import { loadConfig } from "../../server/config";

export function launchBenchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: loadConfig().chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

/** Signs the context in through the endpoint the sign-in page uses; the context keeps the session cookie. */
export async function signIn(context: BrowserContext, url: string, account: { email: string; password: string }): Promise<void> {
  const res = await context.request.post(`${url}/api/auth/sign-in/email`, {
    headers: { origin: url },
    data: { email: account.email, password: account.password },
  });
  if (!res.ok()) throw new Error(`signing in as ${account.email} failed: HTTP ${res.status()} ${await res.text()}`);
}
