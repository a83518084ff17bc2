import "server-only";
import fs from "node:fs";
import path from "node:path";
import { dataDir } from "../config";
import { Conflict } from "../errors";
import { oneLine } from "../one-line";

/**
 * A data folder and database made by a Baton from before they were made private (755 and 644
 * under the usual umask: every handoff and the webhooks' secrets readable by the machine's other
 * users) are narrowed to 700 and 600 when a process starts (pendingMigrations, once it has read
 * that the file is Baton's database), once: afterwards nothing is loose, and each start costs the
 * folder's stat beside the database's, which it already took.
 *
 * Only what this user owns, and a folder only when it is plainly Baton's: the data folder the
 * database is in, holding nothing but what Baton puts there. BATON_DATA_DIR may name a folder of
 * the user's own (their home, /tmp): its modes are theirs to choose, and such a folder is left
 * as it is (the database files in it are still narrowed: they are Baton's).
 */

/** What Baton keeps in a data folder beside its database files (`baton.db`, `-wal`, `-shm`, `-journal`). */
const DATA_FOLDER_ENTRIES = new Set(["artifacts", "personas", "hooks", "runtime"]);

/** The data folder's own SQLite database (lib/config.ts's default DATABASE_URL). */
const DEFAULT_DATABASE_NAME = "baton.db";

const modeText = (stat: fs.Stats) => (stat.mode & 0o777).toString(8);

/** Readable, writable or searchable by anyone but the owner, and the owner is this user (never on Windows, where modes mean nothing). */
function looseAndOurs(stat: fs.Stats): boolean {
  return (stat.mode & 0o077) !== 0 && process.getuid !== undefined && stat.uid === process.getuid();
}

/** Whether `folder` holds only Baton's things; read only for a data folder found loose. */
function holdsOnlyBatons(folder: string, databaseName: string): boolean {
  const entries = fs.opendirSync(folder);
  try {
    for (let entry = entries.readSync(); entry; entry = entries.readSync()) {
      if (!DATA_FOLDER_ENTRIES.has(entry.name) && !entry.name.startsWith(databaseName)) return false;
    }
    return true;
  } finally {
    entries.closeSync();
  }
}

/** The data folder, when loose, ours, Baton's alone and no shared folder (sticky or writable by all, as /tmp). */
function narrowFolder(folder: string, databaseName: string): string | null {
  const stat = fs.statSync(folder, { throwIfNoEntry: false });
  if (!stat?.isDirectory() || !looseAndOurs(stat) || (stat.mode & 0o1002) !== 0) return null;
  if (!holdsOnlyBatons(folder, databaseName)) return null;
  fs.chmodSync(folder, 0o700);
  return `the data folder ${oneLine(folder)} (was ${modeText(stat)})`;
}

/** The database file and the journal files SQLite keeps beside it with its mode. */
function narrowDatabase(file: string, stat: fs.Stats): string | null {
  if (!looseAndOurs(stat)) return null;
  fs.chmodSync(file, 0o600);
  for (const companion of ["-wal", "-shm", "-journal"].map((suffix) => `${file}${suffix}`)) {
    const companionStat = fs.statSync(companion, { throwIfNoEntry: false });
    if (companionStat && looseAndOurs(companionStat)) fs.chmodSync(companion, 0o600);
  }
  return `the database ${oneLine(file)} (was ${modeText(stat)})`;
}

function sayNarrowed(narrowed: (string | null)[], exposed: string): void {
  const said = narrowed.filter((what) => what !== null);
  if (said.length === 0) return;
  process.stderr.write(`baton: made ${said.join(" and ")} private to this user (other users of this machine could read ${exposed})\n`);
}

/**
 * Narrows what others could read (see above) and says so on stderr, in one line. `stat` is the
 * database file's, taken by the caller.
 */
export function narrowOlderModes(file: string, stat: fs.Stats): void {
  const folder = path.dirname(file);
  sayNarrowed([folder === dataDir() ? narrowFolder(folder, path.basename(file)) : null, narrowDatabase(file, stat)], "every handoff");
}

/**
 * The same for a process on PostgreSQL, once it has read that the database is Baton's: the data
 * folder still holds the artifacts, shift documents and hooks' state, and an older Baton's (755)
 * kept them readable by every user of the machine. By the same rules; a start costs the folder's
 * stat. A `baton.db` left in it from before the team moved to PostgreSQL is Baton's too.
 */
export function narrowOlderDataFolder(): void {
  sayNarrowed([narrowFolder(dataDir(), DEFAULT_DATABASE_NAME)], "its shift documents and artifacts");
}

/**
 * Refuses a data folder another user owns, before anything in it is read: its owner can replace
 * what Baton keeps there (the database, shift documents, the runtime copy `baton setup
 * claude-code` points Claude Code's hooks at) with their own, which this user's processes would
 * then trust, and run. Another user comes to own it where they may write its parent (made under
 * a permissive umask): they move the user's folder aside and make their own in its place. Root
 * too, as PostgreSQL refuses a data directory its user does not own. Never on Windows (no owners).
 */
export function refuseDataFolderOfAnotherUser(): void {
  if (process.getuid === undefined) return;
  const folder = dataDir();
  const stat = fs.statSync(folder, { throwIfNoEntry: false });
  if (!stat || stat.uid === process.getuid()) return;
  throw new Conflict(
    `the data folder ${oneLine(folder)} belongs to another user (uid ${stat.uid}), who could replace what Baton keeps there; nothing was read or changed: use a folder of your own (BATON_DATA_DIR=<folder>), or have its owner run Baton`,
  );
}
