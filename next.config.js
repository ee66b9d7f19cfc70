// @ts-check
/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and browser-driving packages stay outside the server bundle (Next lists most already; explicit intent).
  serverExternalPackages: ["better-sqlite3", "playwright", "sharp"],
  typedRoutes: false,
  // forbidden() and app/forbidden.tsx: pages an annotator may not open answer 403 with a readable view.
  experimental: { authInterrupts: true },
};

export default nextConfig;
