// @ts-check
/**
 * Baton runs on the Node LTS lines users run, 22 and 24 (package.json's engines). Its SQLite
 * binding (better-sqlite3 13) crashes older Node outright, so every entry point says so in one
 * line first.
 */
export const MINIMUM_MAJOR = 22;

/** The major version of the Node running this code. */
export const RUNNING_MAJOR = Number(process.versions.node.split(".")[0]);

export function exitUnlessSupportedNode() {
  if (RUNNING_MAJOR >= MINIMUM_MAJOR) return;
  console.error(`baton: needs Node ${MINIMUM_MAJOR} or newer (an LTS line: 22 or 24); this is Node ${process.versions.node}`);
  process.exit(1);
}
