/**
 * A real, throwaway PostgreSQL server, for the tests and for `npm run bench`: Debian's binaries, initdb into a temp
 * folder, a free port on 127.0.0.1, the unix socket inside the temp folder, durability off (fsync, synchronous
 * commit) since nothing in it outlives the run, stopped and removed afterwards (also when the process is killed).
 *
 * PostgreSQL refuses to run as root, so when this runs as root the server runs as the unprivileged user
 * `verdict-pg` (created like scripts/browser-user.sh creates the browser's user), owning the temp folder.
 *
 * `const pg = await startPostgres()`, then `pg.createDatabase()` for each empty database wanted, `await pg.stop()`.
 * Which backends the test suites cover, and when a missing PostgreSQL is an error, is tests/helpers/postgres.ts.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/** Why no server can be started, when `findPostgresBinDir` finds nothing. */
export const MISSING_POSTGRES =
  "no PostgreSQL binaries (initdb, pg_ctl, postgres) under /usr/lib/postgresql/*/bin, VERDICT_PG_BIN or PATH; install them with apt-get install -y postgresql";

const PG_USER = "verdict-pg";
/** The superuser initdb makes; clients connect as it over loopback with trust authentication. */
const PG_ROLE = "verdict";

/** Folder holding initdb/pg_ctl/postgres: VERDICT_PG_BIN, else the newest /usr/lib/postgresql/<version>/bin, else PATH. */
export function findPostgresBinDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const has = (dir: string) => ["initdb", "pg_ctl", "postgres"].every((b) => fs.existsSync(path.join(dir, b)));
  if (env.VERDICT_PG_BIN) return has(env.VERDICT_PG_BIN) ? env.VERDICT_PG_BIN : null;
  const debian = "/usr/lib/postgresql";
  if (fs.existsSync(debian)) {
    const versions = fs
      .readdirSync(debian)
      .filter((v) => has(path.join(debian, v, "bin")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(debian, versions[0], "bin");
  }
  for (const dir of (env.PATH ?? "").split(path.delimiter)) if (dir && has(dir)) return dir;
  return null;
}

export interface ThrowawayPostgres {
  /** postgres:// URL of the server's default database. */
  url: string;
  port: number;
  dir: string;
  /** A new empty database on this server; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

function ensurePgUser(): void {
  if (spawnSync("id", ["-u", PG_USER], { stdio: "ignore" }).status === 0) return;
  execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", PG_USER], {
    stdio: "pipe",
  });
}

/** The command line running a PostgreSQL binary, as `verdict-pg` when this process is root. */
function pgCommand(binDir: string, bin: string, args: string[]): [string, string[]] {
  const file = path.join(binDir, bin);
  return isRoot() ? ["runuser", ["-u", PG_USER, "--", file, ...args]] : [file, args];
}

/** Runs a PostgreSQL binary; throws with its output on failure. */
function runPg(binDir: string, bin: string, args: string[]): void {
  const [cmd, argv] = pgCommand(binDir, bin, args);
  const r = spawnSync(cmd, argv, { encoding: "utf8", cwd: os.tmpdir() });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
}

function serverOptions(port: number, socketDir: string, maxConnections: number): string {
  return [
    `-p ${port}`,
    `-k ${socketDir}`,
    "-c listen_addresses=127.0.0.1",
    // Nothing in a throwaway server outlives the run: durability buys nothing and costs time.
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    // Several people's test and bench runs share a small machine.
    "-c shared_buffers=16MB",
    `-c max_connections=${maxConnections}`,
  ].join(" ");
}

let databaseCounter = 0;

export interface StartOptions {
  /** The server's max_connections (default 40: one test file's or one bench's pools). */
  maxConnections?: number;
}

export async function startPostgres(options: StartOptions = {}): Promise<ThrowawayPostgres> {
  const binDir = findPostgresBinDir();
  if (!binDir) throw new Error(`found ${MISSING_POSTGRES}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verdict-pg-"));
  const data = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  if (isRoot()) {
    ensurePgUser();
    execFileSync("chown", [`${PG_USER}:${PG_USER}`, dir]);
  }
  let started = false;
  let watchdog: ChildProcess | null = null;
  const stopServer = () => {
    if (started) {
      const [cmd, argv] = pgCommand(binDir, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      spawnSync(cmd, argv, { stdio: "ignore", cwd: os.tmpdir() });
    }
    started = false;
    if (watchdog?.pid) {
      try {
        process.kill(watchdog.pid);
      } catch {
        // already gone
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", stopServer);
  try {
    runPg(binDir, "initdb", ["-D", data, "-U", PG_ROLE, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]);
    // The free port is only free when asked: another process may take it before the server binds, so try again.
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        runPg(binDir, "pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-o", serverOptions(port, dir, options.maxConnections ?? 40), "start"]);
        break;
      } catch (e) {
        const inUse = fs.existsSync(log) && /could not bind|address already in use/i.test(fs.readFileSync(log, "utf8"));
        if (!inUse || attempt === 3) throw e;
      }
    }
    started = true;
    // A test process killed without running its exit handlers (vitest ends its workers with a signal, a crash,
    // Ctrl-C) must not leave a server behind: a detached watchdog stops it and removes the folder once we are gone.
    const [stopCmd, stopArgs] = pgCommand(binDir, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`;
    watchdog = spawn(
      "sh",
      [
        "-c",
        `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${[stopCmd, ...stopArgs].map(quote).join(" ")} >/dev/null 2>&1; rm -rf ${quote(dir)}`,
      ],
      { detached: true, stdio: "ignore", cwd: os.tmpdir() },
    );
    watchdog.unref();
    const url = `postgres://${PG_ROLE}@127.0.0.1:${port}/postgres`;
    return {
      url,
      port,
      dir,
      async createDatabase(name = `verdict_${process.pid}_${++databaseCounter}`) {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`createDatabase: "${name}" is not a plain lower-case identifier`);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`create database "${name}"`);
        } finally {
          await client.end();
        }
        return `postgres://${PG_ROLE}@127.0.0.1:${port}/${name}`;
      },
      async stop() {
        process.removeListener("exit", stopServer);
        stopServer();
      },
    };
  } catch (e) {
    const logText = fs.existsSync(log) ? `\nServer log:\n${fs.readFileSync(log, "utf8")}` : "";
    process.removeListener("exit", stopServer);
    stopServer();
    throw new Error(`Could not start a throwaway PostgreSQL: ${(e as Error).message}${logText}`);
  }
}
