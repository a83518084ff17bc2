import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // Server modules import "server-only", whose default entry throws outside a React server
      // bundle. Tests run server code only (no client bundle to protect): take its empty entry,
      // as tsconfig.json's paths do for tsx and esbuild. Not the react-server condition: that
      // would also swap react-dom/server, which tests render with.
      "server-only": path.resolve(import.meta.dirname, "node_modules/server-only/empty.js"),
    },
  },
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/isolated-data-dir.ts"],
    // Integration tests spawn servers and write real SQLite files; give them room on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
