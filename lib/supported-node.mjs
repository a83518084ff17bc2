// @ts-check
/**
 * Baton runs on the Node LTS lines users run, 22 and 24 (package.json's engines). Its SQLite
 * binding (better-sqlite3 13) crashes older Node outright, so every entry point says so in one
 * line first.
 */
const MINIMUM_MAJOR = 22;

export function exitUnlessSupportedNode() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= MINIMUM_MAJOR) return;
  console.error(`baton: needs Node ${MINIMUM_MAJOR} or newer (an LTS line: 22 or 24); this is Node ${process.versions.node}`);
  process.exit(1);
}
