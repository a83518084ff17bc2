import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Two projects, one suite: `sqlite` runs every test file on the embedded engine, `postgres`
 * runs the contract suite (every file that reaches the database) on a real PostgreSQL the run
 * starts. `BATON_TEST_ENGINE=sqlite|postgres` runs one engine only (every file on it).
 */
const onlyEngine = process.env.BATON_TEST_ENGINE;
const engines = onlyEngine ? [onlyEngine] : ["sqlite", "postgres"];
process.env.BATON_TEST_ENGINES = engines.join(",");

/** Files that never open a database, or test SQLite's own file handling: once is enough. */
const engineIndependent = [
  "tests/lint-boundaries.test.ts",
  "tests/secrets-scan.test.ts",
  "tests/heap-bounds.test.ts",
  "tests/mcp-inspector.test.ts",
  "tests/setup-claude-code.test.ts",
  "tests/stale-cache.test.ts",
  "tests/tmux-bridge.test.ts",
  "tests/crash-safety.test.ts",
  "tests/data-folder.test.ts",
  "tests/cli-help.test.ts",
  "tests/start-rebuild.test.ts",
  "tests/closed-output.test.ts",
  "tests/read-only-database.test.ts",
  "tests/database-file-replaced.test.ts",
  "tests/package-install.test.ts",
  // It makes the shared prebuilt MCP server stale for a moment; a run on each engine at once
  // would rebuild it under the other's feet. mcp-conformance runs the prebuilt server on both.
  "tests/mcp-prebuilt.test.ts",
];

/**
 * Files that test PostgreSQL only: left out of the sqlite project (and of a run on SQLite alone)
 * rather than skipped inside, since a skipped file still runs its setup and never its teardown.
 */
const postgresOnly = ["tests/copy-data.test.ts", "tests/postgres-waits.test.ts", "tests/postgres-url-options.test.ts"];

/** What a project leaves out: the other engine's files, and on the second engine what runs once. */
function excludedOn(engine: string): string[] {
  if (engine === "sqlite") return postgresOnly;
  return onlyEngine ? [] : engineIndependent;
}

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
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/isolated-data-dir.ts"],
    // Integration tests spawn servers and write real databases; give them room on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two files at a time. Vitest's default is one fewer than the cores, which is one on the
    // 2-core CI machines, where most files wait on the servers, processes and sockets they start
    // (the suite on both engines: 606 s one at a time in CI, 442 s two at a time).
    maxWorkers: 2,
    projects: engines.map((engine) => ({
      extends: true,
      test: {
        name: engine,
        include: ["tests/**/*.test.ts"],
        exclude: excludedOn(engine),
        env: { BATON_TEST_ENGINE: engine },
      },
    })),
  },
});
