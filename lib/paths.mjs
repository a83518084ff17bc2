// @ts-check
/**
 * Where Baton's files are, in plain JavaScript because the fast-start launchers
 * (lib/prebuilt/prebuilt.mjs) and `bin/baton.mjs` run without TypeScript. One definition for the
 * dashboard, MCP and the CLI.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout: the folder with package.json. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The data folder when BATON_DATA_DIR is not set: `data/` in the checkout, whatever the current
 * folder, so `npx baton mcp` started by Claude Code in a project folder shares the dashboard's data.
 */
export function defaultDataDir() {
  return path.join(projectRoot, "data");
}
