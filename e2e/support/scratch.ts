import fs from "node:fs";
import path from "node:path";

/**
 * The run's temporary folders (extra servers' data, stand-in repositories and agents, clients'
 * homes) live under one root per port, which playwright.config.ts names and removes when a run
 * starts and when it ends: a test that fails or is killed midway leaves nothing in the system's
 * temporary folder.
 */
function scratchRoot(): string {
  const root = process.env.BATON_E2E_SCRATCH;
  if (!root) throw new Error("run through playwright.config.ts: BATON_E2E_SCRATCH is not set");
  return root;
}

/** A new empty folder under the run's root, its name starting with `prefix`. */
export function scratchDir(prefix: string): string {
  fs.mkdirSync(scratchRoot(), { recursive: true });
  return fs.mkdtempSync(path.join(scratchRoot(), prefix));
}

/** Playwright's global setup and teardown: the root and everything in it removed. */
export default function removeScratch(): void {
  fs.rmSync(scratchRoot(), { recursive: true, force: true, maxRetries: 5 });
}
