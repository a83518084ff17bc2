import type { NextConfig } from "next";
import { BODY_LIMITS } from "./lib/guard/body-limits";

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
  // Baton's guard limits each page's body before Next reads it (lib/guard/body-limits.ts); Next's
  // own 1 MB for server actions would refuse the import page's documents near their 1 MiB.
  experimental: { serverActions: { bodySizeLimit: BODY_LIMITS.import } },
};

export default nextConfig;
