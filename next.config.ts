import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Tests build into their own folder so a test run never clobbers a developer's build.
  distDir: process.env.BATON_DIST_DIR || ".next",
  // The published package (scripts/build-package.ts) carries only the files the server needs, traced by Next.
  ...(process.env.BATON_STANDALONE === "1" && { output: "standalone" as const }),
  poweredByHeader: false,
  // The build checks only what it bundles; `npm test` type-checks the whole project (tests,
  // scripts, CLI) with tsc.
  typescript: { tsconfigPath: "tsconfig.next.json" },
  reactStrictMode: true,
};

export default nextConfig;
