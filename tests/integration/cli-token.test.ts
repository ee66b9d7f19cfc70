/**
 * `npm run cli -- token …` (issue 31, item 1): an admin at the server makes a token for an account (printed once),
 * lists the account's tokens without their secrets, and revokes one; the token then authenticates, and after
 * revocation it no longer does. Bad input is a usage error naming the flag.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAccount } from "../../server/services/accounts";
import { authenticateBearer } from "../../server/services/accounts/api-tokens";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import { runCliInProcess } from "../helpers/cli";
import type { TestContext } from "../helpers/context";

const environment = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "VERDICT_DATABASE_URL" && k !== "VERDICT_DB")) as NodeJS.ProcessEnv;

describeEachBackend("npm run cli -- token", (backend) => {
  let ctx: TestContext;

  const cli = (args: string[]) =>
    runCliInProcess(args, {
      ...environment,
      VERDICT_DATA_DIR: ctx.dir,
      VERDICT_DB: ctx.config.dbPath,
      ...(ctx.config.postgresUrl ? { VERDICT_DATABASE_URL: ctx.config.postgresUrl } : {}),
    });
  const bearer = (token: string) =>
    authenticateBearer(ctx, { url: "http://127.0.0.1/api/v1/trajectories", headers: new Headers({ authorization: `Bearer ${token}` }) });

  beforeAll(async () => {
    ctx = await createBackendContext(backend, "verdict-cli-token-");
    await createAccount(ctx, { email: "boss@cli.test", name: "Boss", role: "admin", password: "boss-password" });
    await createAccount(ctx, { email: "ci@cli.test", name: "CI", role: "researcher", password: "ci-password-1" });
  });
  afterAll(async () => {
    await ctx.cleanup();
  });

  it("makes a token for an account, lists it without its secret, and revokes it", async () => {
    const made = await cli(["token", "create", "--email", "ci@cli.test", "--name", "nightly CI", "--scope", "read-write", "--days", "30", "--json"]);
    expect(made.code, made.stderr).toBe(0);
    const body = JSON.parse(made.stdout) as { token: string; id: number; scope: string; name: string };
    expect(body).toMatchObject({ name: "nightly CI", scope: "read-write" });
    expect(body.token).toMatch(/^vdt_/);
    expect(await bearer(body.token)).toMatchObject({ identity: { scope: "read-write", session: { email: "ci@cli.test", role: "researcher" } } });

    const list = await cli(["token", "list", "--email", "ci@cli.test"]);
    expect(list.stdout).toMatch(/nightly CI\s+read-write/);
    expect(list.stdout).toMatch(/active/);
    expect(list.stdout).not.toContain(body.token.slice(17));

    const revoked = await cli(["token", "revoke", "--id", String(body.id)]);
    expect(revoked.stdout).toMatch(/is revoked/);
    expect(await bearer(body.token)).toMatchObject({ refusal: { status: 401 } });
    expect((await cli(["token", "list", "--email", "ci@cli.test"])).stdout).toMatch(/revoked/);
  });

  it("refuses a bad scope, a lifetime out of range, an unknown account and a missing name", async () => {
    expect((await cli(["token", "create", "--email", "ci@cli.test", "--name", "x", "--scope", "admin"])).stderr).toMatch(
      /scope must be one of read, read-write/,
    );
    expect((await cli(["token", "create", "--email", "ci@cli.test", "--name", "x", "--days", "1000"])).stderr).toMatch(/1 to 366 days/);
    expect((await cli(["token", "create", "--email", "nobody@cli.test", "--name", "x"])).stderr).toMatch(/No account with email nobody@cli.test/);
    const noName = await cli(["token", "create", "--email", "ci@cli.test"]);
    expect(noName.code).not.toBe(0);
    expect(noName.stderr).toMatch(/--name is required/);
  });
});
