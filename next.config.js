// @ts-check

/**
 * Headers on every response. Pages also get a Content-Security-Policy with a per-request script nonce from
 * proxy.ts; API responses (JSON, images, CSV) get a policy that allows nothing, so a file opened directly can
 * never run script.
 */
const SECURITY_HEADERS = [
  // Nobody may frame the app (clickjacking); frame-ancestors in the CSP says the same to current browsers.
  { key: "X-Frame-Options", value: "DENY" },
  // Screenshots and exports are served with their declared type only, never sniffed into HTML.
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Trajectory and campaign URLs stay inside the installation.
  { key: "Referrer-Policy", value: "same-origin" },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and browser-driving packages stay outside the server bundle (Next lists most already; explicit intent).
  serverExternalPackages: ["better-sqlite3", "playwright", "sharp"],
  typedRoutes: false,
  // forbidden() and app/forbidden.tsx: pages an annotator may not open answer 403 with a readable view.
  experimental: { authInterrupts: true },
  poweredByHeader: false,
  // `npm test` type-checks the whole project (with Next's generated route types) in a stage of its own before it
  // builds, and builds with VERDICT_BUILD_TYPES_CHECKED=1 so the same check does not run twice. Every other build
  // checks the types itself.
  typescript: { ignoreBuildErrors: process.env.VERDICT_BUILD_TYPES_CHECKED === "1" },
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      // The tab icon: Next serves it for revalidation on every request, and Chromium asks again on every address
      // change (the player writes ?step=N on each step), so stepping through 15 steps fetched it 30 times.
      { source: "/icon.svg", headers: [{ key: "Cache-Control", value: "public, max-age=86400" }] },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'; sandbox" }] },
    ];
  },
};

export default nextConfig;
