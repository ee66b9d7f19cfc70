// @ts-check
/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and browser-driving packages stay outside the server bundle (Next lists most already; explicit intent).
  serverExternalPackages: ["better-sqlite3", "playwright", "sharp"],
  typedRoutes: false,
};

export default nextConfig;
