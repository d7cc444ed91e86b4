/** @type {import('next').NextConfig} */
const nextConfig = {
  // Parallel builds (several engineers' e2e runs on one machine) each need their own output directory.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // The dev server is often opened as 127.0.0.1; without this Next blocks its own HMR socket from that origin.
  allowedDevOrigins: ['127.0.0.1'],
  // Engineers building in parallel skip the type check of each other's work in progress; CI never sets this.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === '1' },
  // `npm run bench:ui` profiles read better with original names; shipping source maps is otherwise not wanted.
  productionBrowserSourceMaps: process.env.NEXT_BROWSER_SOURCE_MAPS === '1',
  // Server-only packages the gateway uses must not be bundled into route handlers.
  serverExternalPackages: ['ws', 'better-sqlite3'],
};

export default nextConfig;
