/**
 * Launching the system Chromium through Playwright.
 *
 * Verdict drives the Debian `chromium` package rather than Playwright's downloaded builds (`npx playwright install`
 * needs a CDN this deployment cannot reach), so the binary's path is configuration and a missing binary is reported
 * with the command that installs it.
 */
import fs from "node:fs";
import { chromium, type Browser } from "playwright";

export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";

/** Flags for a headless, quiet browser in a container: no sandbox (often unavailable as root), no GPU, no phoning home. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export const CHROMIUM_INSTALL_COMMAND = "apt-get install -y chromium";

export class ChromiumNotFoundError extends Error {
  constructor(readonly executablePath: string) {
    super(
      `Chromium was not found at ${executablePath}. Install it with \`${CHROMIUM_INSTALL_COMMAND}\` ` +
        `(as root, after \`apt-get update\`), or point CHROMIUM_PATH at an existing Chromium binary.`,
    );
    this.name = "ChromiumNotFoundError";
  }
}

export interface LaunchOptions {
  /** Defaults to CHROMIUM_PATH from the environment, then /usr/bin/chromium. */
  executablePath?: string;
  headless?: boolean;
  /** Appended to CHROMIUM_ARGS. */
  extraArgs?: string[];
}

export function resolveChromiumPath(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.CHROMIUM_PATH && env.CHROMIUM_PATH.trim() !== "" ? env.CHROMIUM_PATH : undefined;
  return explicit ?? fromEnv ?? DEFAULT_CHROMIUM_PATH;
}

/** True when the path exists and is an executable file. */
export function chromiumAvailable(executablePath: string): boolean {
  try {
    const st = fs.statSync(executablePath);
    if (!st.isFile()) return false;
    fs.accessSync(executablePath, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const executablePath = resolveChromiumPath(options.executablePath);
  if (!chromiumAvailable(executablePath)) throw new ChromiumNotFoundError(executablePath);
  return chromium.launch({
    executablePath,
    headless: options.headless ?? true,
    args: [...CHROMIUM_ARGS, ...(options.extraArgs ?? [])],
  });
}
