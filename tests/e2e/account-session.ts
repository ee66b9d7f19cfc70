/**
 * An e2e account created through the real account service and signed in through better-auth, its session written as
 * a Playwright storage state in the e2e folder (`auth-<key>.json`). Used by the global setup for the shared accounts,
 * and by specs that need an account no earlier spec's campaign could have picked up.
 */
import fs from "node:fs";
import path from "node:path";
import { getAuth } from "../../server/auth/auth";
import type { AppContext } from "../../server/context";
import { createAccount } from "../../server/services/accounts";

export interface E2EAccountSpec {
  key: string;
  email: string;
  name: string;
  role: "admin" | "researcher" | "annotator";
  password: string;
}

/** Creates the account, signs it in and writes its storage state; returns the file. */
export async function createSignedInAccount(app: AppContext, a: E2EAccountSpec, host: string): Promise<string> {
  await createAccount(app, { email: a.email, name: a.name, role: a.role, password: a.password });
  return signInAccount(app, a, host);
}

/** Signs an existing account in and writes its storage state; returns the file. */
export async function signInAccount(app: AppContext, a: E2EAccountSpec, host: string): Promise<string> {
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
  const file = path.join(app.config.dataDir, `auth-${a.key}.json`);
  fs.writeFileSync(file, JSON.stringify({ cookies, origins: [] }, null, 1));
  return file;
}
