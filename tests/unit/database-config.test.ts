/**
 * VERDICT_DATABASE_URL chooses the engine: a postgres:// URL selects PostgreSQL, a file path a SQLite file (like
 * VERDICT_DB), and anything else is refused with a message naming the variable.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig as loadConfigFrom } from "../../server/config";

const loadConfig = (env: Record<string, string>) => loadConfigFrom(env as NodeJS.ProcessEnv);

describe("VERDICT_DATABASE_URL", () => {
  it("is SQLite in the data folder when absent", () => {
    const c = loadConfig({ VERDICT_DATA_DIR: "/srv/verdict" });
    expect(c).toMatchObject({ dbPath: "/srv/verdict/verdict.db", postgresUrl: undefined });
  });

  it("selects PostgreSQL for postgres:// and postgresql:// URLs", () => {
    expect(loadConfig({ VERDICT_DATABASE_URL: "postgres://v:pw@db:5432/verdict" }).postgresUrl).toBe("postgres://v:pw@db:5432/verdict");
    expect(loadConfig({ VERDICT_DATABASE_URL: " postgresql://db/verdict " }).postgresUrl).toBe("postgresql://db/verdict");
  });

  it("is a SQLite file when it is a path", () => {
    const c = loadConfig({ VERDICT_DATABASE_URL: "./elsewhere/v.db" });
    expect(c.postgresUrl).toBeUndefined();
    expect(c.dbPath).toBe(path.resolve("elsewhere/v.db"));
    expect(loadConfig({ VERDICT_DATABASE_URL: "/a/v.db", VERDICT_DB: "/a/v.db" }).dbPath).toBe("/a/v.db");
  });

  it("refuses other schemes and a path that contradicts VERDICT_DB", () => {
    expect(() => loadConfig({ VERDICT_DATABASE_URL: "mysql://db/verdict" })).toThrow('VERDICT_DATABASE_URL has an unsupported scheme "mysql:"');
    expect(() => loadConfig({ VERDICT_DATABASE_URL: "/a/one.db", VERDICT_DB: "/a/two.db" })).toThrow(
      "VERDICT_DATABASE_URL (/a/one.db) and VERDICT_DB (/a/two.db) name different SQLite files",
    );
  });
});
