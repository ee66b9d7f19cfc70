/**
 * Run by global-setup in a child process (tsx), against the e2e database: creates the e2e accounts through the
 * real account service and signs each in through better-auth, writing a Playwright storage state per account
 * (`auth-<key>.json` in the e2e folder) so specs start signed in. The web server shares the database and the
 * generated auth secret in the data folder, so it accepts these sessions.
 */
import fs from "node:fs";
import path from "node:path";
import { getAuth } from "../../server/auth/auth";
import { getAppContext } from "../../server/context";
import { createAccount } from "../../server/services/accounts";
import { E2E_ACCOUNTS } from "./accounts";

const app = getAppContext();
const host = process.argv[2] ?? "127.0.0.1";
for (const a of E2E_ACCOUNTS) {
  await createAccount(app, { email: a.email, name: a.name, role: a.role, password: a.password });
  const res = await (await getAuth(app)).api.signInEmail({ body: { email: a.email, password: a.password }, returnHeaders: true });
  const cookies = res.headers.getSetCookie().map((line) => {
    const [pair, ...attrs] = line.split(";").map((p) => p.trim());
    const eq = pair!.indexOf("=");
    const maxAge = attrs.find((x) => /^max-age=/i.test(x));
    return {
      name: pair!.slice(0, eq),
      value: pair!.slice(eq + 1),
      domain: host,
      path: "/",
      expires: maxAge ? Math.floor(Date.now() / 1000) + Number(maxAge.split("=")[1]) : -1,
      httpOnly: attrs.some((x) => /^httponly$/i.test(x)),
      secure: false,
      sameSite: "Lax" as const,
    };
  });
  fs.writeFileSync(path.join(app.config.dataDir, `auth-${a.key}.json`), JSON.stringify({ cookies, origins: [] }, null, 1));
}
process.stdout.write(JSON.stringify({ accounts: E2E_ACCOUNTS.map((a) => a.email) }));
