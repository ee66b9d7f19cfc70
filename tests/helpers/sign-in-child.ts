/**
 * A second web server's sign-in, in a process of its own: opens the installation (argv: data folder, SQLite file,
 * PostgreSQL URL or "-"), builds its own better-auth instance, sends `count` sign-ins for `email` with `password`
 * as if from client `address` (the header the web server stamps from the connection), and prints the statuses
 * as JSON. Its configuration says production, so the rate limit is on, as under `next start`.
 */
import { closeDatabase } from "../../db/database";
import { getAuth } from "../../server/auth/auth";
import { CLIENT_ADDRESS_HEADER } from "../../server/auth/client-address";
import { createAppContext } from "../../server/context";

const [dataDir, dbPath, postgresUrl, email, password, address, count] = process.argv.slice(2) as [string, string, string, string, string, string, string];
const app = createAppContext({ dataDir, dbPath, ...(postgresUrl !== "-" ? { postgresUrl } : {}), chromiumPath: "/usr/bin/chromium", production: true });
const auth = await getAuth(app);
const statuses: number[] = [];
for (let i = 0; i < Number(count); i++) {
  const response = await auth.handler(
    new Request("http://127.0.0.1:3000/api/auth/sign-in/email", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000", [CLIENT_ADDRESS_HEADER]: address },
      body: JSON.stringify({ email, password }),
    }),
  );
  statuses.push(response.status);
}
process.stdout.write(JSON.stringify(statuses));
await closeDatabase(app.db);
