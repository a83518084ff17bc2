import "server-only";
import fs from "node:fs";
import path from "node:path";
import { databaseFile } from "../config";
import { changeStamp, read } from "../database";
import { inTurn, pruneSoon, PRUNE_EVERY_MS, requestDrain, type FeedState, type Follower } from "./fan-out";
import { allocatedIn } from "./rows";

/**
 * SQLite's follower (see fan-out.ts): a check asks whether the database changed, touching no
 * table, and asks for a drain when it did; housekeeping (pruning) rides on the quiet checks. A
 * check runs when the database's folder says its files changed (every commit of any process
 * appends to the write-ahead log), and every CHECK_INTERVAL_MS in any case, for a folder whose
 * filesystem sends no change events (a network mount) and for pruning.
 */
export const CHECK_INTERVAL_MS = 100;
/**
 * After a change event that showed no change yet, checks again this much later, each in turn: the
 * event comes with the write to the log, and the commit becomes visible to readers a moment
 * later, when the writer updates the log's index (shared memory, which sends no event).
 */
const RECHECKS_AFTER_EVENT_MS = [1, 2, 4, 8, 16];

/** Whether any connection wrote, reading no table: the database's change stamp, taken in turn with this process's transactions (so never null on SQLite). */
const probe = () => read(() => changeStamp());

export function followSqlite(state: FeedState): Follower {
  let timer: ReturnType<typeof setInterval> | null = null;
  let stopped = false;
  let version: string | null = null;
  let watcher: fs.FSWatcher | null = null;
  let checking = false;
  let checkAgain = false;
  let recheck: ReturnType<typeof setTimeout> | null = null;
  /** The last check failed (its error was logged). */
  let failing = false;
  /** Whether it saw a change (false too when a check was already running: that one reports). */
  const tick = async (): Promise<boolean> => {
    // A change event during a check may have come after its probe: check once more when it ends.
    if (checking) {
      checkAgain = true;
      return false;
    }
    checking = true;
    let changed = false;
    try {
      do {
        checkAgain = false;
        state.stats.checks++;
        const now = await probe();
        // Stopped while probing (the database closed): reading on would open it again.
        if (stopped) break;
        if (now !== version) {
          version = now;
          changed = true;
          requestDrain(state);
        } else if (Date.now() - state.lastPruneAt >= PRUNE_EVERY_MS) {
          void inTurn(state, () => pruneSoon(state));
        }
      } while (checkAgain && !stopped);
      if (failing) console.error("baton: the change feed reads the database again");
      failing = false;
    } catch (error) {
      // Said once, not at every check (ten times a second) while the database stays away.
      if (!failing) console.error("baton: the change feed could not read the database; retrying quietly until it can", error);
      failing = true;
    } finally {
      checking = false;
    }
    return changed;
  };
  const afterEvent = async (attempt = 0) => {
    if (recheck) clearTimeout(recheck);
    recheck = null;
    if ((await tick()) || stopped || attempt >= RECHECKS_AFTER_EVENT_MS.length) return;
    recheck = setTimeout(() => void afterEvent(attempt + 1), RECHECKS_AFTER_EVENT_MS[attempt]);
    recheck.unref?.();
  };
  const ready = (async () => {
    // Version first: a write landing between the two is then seen by the first tick.
    version = await probe();
    const latest = await read(allocatedIn);
    if (stopped) return;
    state.last = latest;
    timer = setInterval(() => void tick(), CHECK_INTERVAL_MS);
    // The feed serves whoever is subscribed; it never keeps a process alive by itself.
    timer.unref?.();
    watcher = watchDatabaseFiles(state.url, () => void afterEvent());
  })();
  return {
    ready,
    stop: () => {
      stopped = true;
      if (timer) clearInterval(timer);
      if (recheck) clearTimeout(recheck);
      watcher?.close();
    },
  };
}

/**
 * Calls `changed` when the database file or its write-ahead log changes, from any process. The
 * folder is watched, not the files: SQLite deletes the log when its last connection closes and
 * makes a new one later, which a watch on the file itself would miss. The folder is the real
 * file's: SQLite follows a symbolic link and keeps the log beside its target, so a watch beside
 * the link heard no commit and every wake-up waited for the timer. Null where the folder
 * cannot be watched; the timer covers it.
 */
function watchDatabaseFiles(url: string, changed: () => void): fs.FSWatcher | null {
  const file = realPathOf(databaseFile(url));
  const names = new Set([path.basename(file), `${path.basename(file)}-wal`]);
  try {
    const watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (name !== null && names.has(name)) changed();
    });
    watcher.on("error", () => watcher.close());
    return watcher;
  } catch {
    return null;
  }
}

/** `file` with every symbolic link resolved, as SQLite opens it; the path as given when it cannot be resolved. */
function realPathOf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
