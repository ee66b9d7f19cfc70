/**
 * The accounts the e2e run creates (setup-data.ts; the cluster spec, accounts-setup.ts) and where their signed-in
 * storage states are.
 * The first is the admin, which every spec uses unless it says otherwise.
 */
import path from "node:path";

export const E2E_ACCOUNTS = [
  { key: "admin", email: "admin@e2e.test", name: "Eve Admin", role: "admin", password: "e2e-admin-pass" },
  { key: "researcher", email: "researcher@e2e.test", name: "Rae Researcher", role: "researcher", password: "e2e-researcher-pass" },
  { key: "annotator1", email: "annotator1@e2e.test", name: "Ann One", role: "annotator", password: "e2e-annotator-pass" },
  { key: "annotator2", email: "annotator2@e2e.test", name: "Bo Two", role: "annotator", password: "e2e-annotator-pass" },
  { key: "annotator3", email: "annotator3@e2e.test", name: "Cy Three", role: "annotator", password: "e2e-annotator-pass" },
  // An annotator designated as a campaign's QA reviewer (the Online-Mind2Web journey), never one of its labellers.
  { key: "qa1", email: "qa1@e2e.test", name: "Quinn QA", role: "annotator", password: "e2e-annotator-pass" },
] as const;

export type E2EAccountKey = (typeof E2E_ACCOUNTS)[number]["key"];

export function account(key: E2EAccountKey) {
  return E2E_ACCOUNTS.find((a) => a.key === key)!;
}

/** Storage state file of an account (cookies of a signed-in session). */
export function storageStateOf(key: E2EAccountKey): string {
  const dir = process.env.VERDICT_E2E_DIR;
  if (!dir) throw new Error("VERDICT_E2E_DIR is not set: run the e2e tests through tests/playwright.config.ts");
  return path.join(dir, `auth-${key}.json`);
}
