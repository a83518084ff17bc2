import "server-only";
import fs from "node:fs";
import path from "node:path";
import { databaseFile } from "../config";
import { read } from "../database";
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

/** SQLite: one statement that reads no table: whether any connection (data_version) or this one (total_changes) wrote. */
const probe = async () => {
  const row = await read((tx) => tx.get<{ v: number; c: number }>("SELECT data_version AS v, total_changes() AS c FROM pragma_data_version"));
  return `${row!.v}:${row!.c}`;
};

export function followSqlite(state: FeedState): Follower {
  let timer: ReturnType<typeof setInterval> | null = null;
  let stopped = false;
  let version = "";
  let watcher: fs.FSWatcher | null = null;
  let checking = false;
  let checkAgain = false;
  const tick = async () => {
    // A change event during a check may have come after its probe: check once more when it ends.
    if (checking) {
      checkAgain = true;
      return;
    }
    checking = true;
    try {
      do {
        checkAgain = false;
        state.stats.checks++;
        const now = await probe();
        if (now !== version) {
          version = now;
          requestDrain(state);
        } else if (Date.now() - state.lastPruneAt >= PRUNE_EVERY_MS) {
          void inTurn(state, () => pruneSoon(state));
        }
      } while (checkAgain && !stopped);
    } catch (error) {
      console.error("baton: the change feed could not read the database; retrying", error);
    } finally {
      checking = false;
    }
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
    watcher = watchDatabaseFiles(state.url, () => void tick());
  })();
  return {
    ready,
    stop: () => {
      stopped = true;
      if (timer) clearInterval(timer);
      watcher?.close();
    },
  };
}


/**
 * Calls `changed` when the database file or its write-ahead log changes, from any process. The
 * folder is watched, not the files: SQLite deletes the log when its last connection closes and
 * makes a new one later, which a watch on the file itself would miss. Null where the folder
 * cannot be watched; the timer covers it.
 */
function watchDatabaseFiles(url: string, changed: () => void): fs.FSWatcher | null {
  const file = databaseFile(url);
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
