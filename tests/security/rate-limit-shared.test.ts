/**
 * Issue 17: several web servers behind a load balancer share one sign-in rate limit. Ten failed sign-ins through
 * one server's better-auth instance (this process) use up the client's attempts for the minute, so the eleventh,
 * sent through another server (a separate process with its own instance on the same database), is refused with
 * 429. With the counts kept in each process's memory the other server would have allowed it.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { getAuth } from "../../server/auth/auth";
import { CLIENT_ADDRESS_HEADER } from "../../server/auth/client-address";
import { createAccount } from "../../server/services/accounts";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

const root = path.resolve(import.meta.dirname, "..", "..");
const child = path.join(root, "tests", "helpers", "sign-in-child.ts");
const PASSWORD = "correct-horse-battery";

/** Sign-ins through the other web server (a process of its own), as client `address`; their statuses. */
function signInElsewhere(ctx: TestContext, address: string, count: number): number[] {
  const r = spawnSync(
    process.execPath,
    ["--import", "tsx", child, ctx.dir, ctx.config.dbPath, ctx.config.postgresUrl ?? "-", "admin@rl.test", "wrong-password", address, String(count)],
    {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  if (r.status !== 0) throw new Error(`the second server's sign-in failed (exit ${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as number[];
}

describeEachBackend("sign-in rate limit shared by web servers", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    const installation = await createBackendContext(backend, "verdict-rate-limit-");
    // As under `next start` (NODE_ENV=production): the rate limit is on only in production.
    ctx = { ...installation, config: { ...installation.config, production: true } };
    await createAccount(ctx, { email: "admin@rl.test", name: "Admin", role: "admin", password: PASSWORD });
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("10 failed sign-ins through one server, the 11th through another is refused", async () => {
    const auth = await getAuth(ctx);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await auth.handler(
        new Request("http://127.0.0.1:3000/api/auth/sign-in/email", {
          method: "POST",
          headers: { "content-type": "application/json", origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000", [CLIENT_ADDRESS_HEADER]: "198.51.100.7" },
          body: JSON.stringify({ email: "admin@rl.test", password: "wrong-password" }),
        }),
      );
      statuses.push(response.status);
    }
    expect(statuses).toEqual(Array(10).fill(401));
    expect(signInElsewhere(ctx, "198.51.100.7", 1)).toEqual([429]);
    // Another client's attempts are its own: the same server lets it try.
    expect(signInElsewhere(ctx, "198.51.100.8", 1)).toEqual([401]);
  });
});
