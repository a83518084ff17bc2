import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
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
