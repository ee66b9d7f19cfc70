/**
 * Run by global-setup in a child process (tsx), against the e2e database: creates the e2e accounts through the
 * real account service and signs each in through better-auth, writing a Playwright storage state per account
 * (`auth-<key>.json` in the e2e folder) so specs start signed in. The web server shares the database and the
 * generated auth secret in the data folder, so it accepts these sessions.
 */
import { getAppContext } from "../../server/context";
import { createSignedInAccount } from "./account-session";
import { E2E_ACCOUNTS } from "./accounts";

const app = getAppContext();
const host = process.argv[2] ?? "127.0.0.1";
for (const a of E2E_ACCOUNTS) await createSignedInAccount(app, a, host);
process.stdout.write(JSON.stringify({ accounts: E2E_ACCOUNTS.map((a) => a.email) }));
