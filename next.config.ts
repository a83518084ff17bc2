import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Tests build into their own folder so a test run never clobbers a developer's build.
  distDir: process.env.BATON_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
