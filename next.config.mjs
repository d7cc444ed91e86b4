/** @type {import('next').NextConfig} */
const nextConfig = {
  // The dev server is often opened as 127.0.0.1; without this Next blocks its own HMR socket from that origin.
  allowedDevOrigins: ['127.0.0.1'],
  // Server-only packages the gateway uses must not be bundled into route handlers.
  serverExternalPackages: ['ws'],
};

export default nextConfig;
