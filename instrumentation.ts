/**
 * Runs once when the web server starts. Stamps each incoming request with the connection's address before Next
 * handles it, so the sign-in rate limit counts real clients (see server/auth/client-address.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { loadConfig } = await import("./server/config");
  const { installClientAddressHeader } = await import("./server/auth/client-address");
  installClientAddressHeader(loadConfig().trustedProxies ?? []);
}
