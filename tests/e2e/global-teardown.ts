import fs from "node:fs";

/** Removes the throwaway database and data folder (VERDICT_E2E_KEEP=1 keeps them for debugging). */
export default async function globalTeardown() {
  const dir = process.env.VERDICT_E2E_DIR;
  if (dir && process.env.VERDICT_E2E_KEEP !== "1") fs.rmSync(dir, { recursive: true, force: true });
}
