/**
 * GET /api/health's answer: ready with the engines named once the database answers; not ready (503) with a short
 * reason, and nothing about where the database is, when it does not.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { closeDatabase } from "../../db/database";
import { createAppContext } from "../../server/context";
import { installationHealth } from "../../server/services/health";
import { createBackendContext, describeEachBackend } from "../helpers/backends";
import type { TestContext } from "../helpers/context";

/** A port on 127.0.0.1 nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describeEachBackend("health", (backend) => {
  let ctx: TestContext;
  beforeEach(async () => {
    ctx = await createBackendContext(backend);
  });
  afterEach(async () => {
    await ctx.cleanup();
  });

  it("says ready and names the database engine and the screenshot storage", async () => {
    expect(await installationHealth(ctx)).toEqual({ ok: true, database: backend, storage: "local" });
    const withS3 = {
      ...ctx,
      config: { ...ctx.config, objectStorage: { bucket: "b", region: "us-east-1", forcePathStyle: true, keyPrefix: "", presign: false } },
    };
    expect(await installationHealth(withS3)).toEqual({ ok: true, database: backend, storage: "s3" });
  });
});

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-health-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

it("says not ready with a short reason, naming no host, user or password, when PostgreSQL is unreachable", async () => {
  const port = await closedPort();
  const url = `postgres://secret_user:hunter2@127.0.0.1:${port}/verdict_prod`;
  const ctx = createAppContext({ dbPath: path.join(dir, "unused.db"), postgresUrl: url, dataDir: dir, chromiumPath: "/usr/bin/chromium" });
  try {
    const report = await installationHealth(ctx);
    expect(report).toEqual({ ok: false, database: "postgres", storage: "local", reason: "database unreachable" });
    expect(JSON.stringify(report)).not.toMatch(/secret_user|hunter2|127\.0\.0\.1|verdict_prod|\d{4,}/);
  } finally {
    await closeDatabase(ctx.db);
  }
});

it("says not ready when the database does not answer in time", async () => {
  // A listener that accepts connections and never speaks: the PostgreSQL handshake hangs.
  const sockets: net.Socket[] = [];
  const silent = net.createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const port = (silent.address() as net.AddressInfo).port;
  const ctx = createAppContext({
    dbPath: path.join(dir, "unused.db"),
    postgresUrl: `postgres://u:p@127.0.0.1:${port}/db`,
    dataDir: dir,
    chromiumPath: "/usr/bin/chromium",
  });
  try {
    // The reason shows the 300 ms budget ended the wait on a handshake that never comes.
    expect(await installationHealth(ctx, 300)).toMatchObject({ ok: false, reason: "database did not answer in time" });
  } finally {
    // Dropping the connection ends the pool's pending attempt, so the pool can close.
    for (const socket of sockets) socket.destroy();
    silent.close();
    await closeDatabase(ctx.db).catch(() => {});
  }
});
