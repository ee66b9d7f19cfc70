/**
 * The services' view of one Verdict installation: its config, its database and its screenshot store.
 * The web server, the CLI, workers and tests all build one of these; nothing else reads the environment.
 */
import { getDatabase, openDatabase, type Db } from "../db/client";
import { loadConfig, type VerdictConfig } from "./config";
import { ScreenshotStore } from "./services/screenshot-store";

export interface AppContext {
  config: VerdictConfig;
  db: Db;
  store: ScreenshotStore;
}

/** Cached per process and database path (the web server and CLI use this). */
export function getAppContext(env: NodeJS.ProcessEnv = process.env): AppContext {
  const config = loadConfig(env);
  return { config, db: getDatabase(config.dbPath, { busyTimeoutMs: config.busyTimeoutMs }), store: new ScreenshotStore(config.dataDir) };
}

/** A fresh, uncached context (tests open throwaway databases with this). */
export function createAppContext(config: VerdictConfig): AppContext {
  return { config, db: openDatabase(config.dbPath, { busyTimeoutMs: config.busyTimeoutMs }), store: new ScreenshotStore(config.dataDir) };
}
