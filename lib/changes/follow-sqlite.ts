import "server-only";
import { read } from "../database";
import { inTurn, pruneSoon, PRUNE_EVERY_MS, requestDrain, type FeedState, type Follower } from "./fan-out";
import { allocatedIn } from "./rows";

/**
 * SQLite's follower (see fan-out.ts): a timer checks every CHECK_INTERVAL_MS whether the database
 * changed, touching no table, and asks for a drain when it did; housekeeping (pruning) rides on
 * the quiet ticks.
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
  let checking = false;
  const tick = async () => {
    if (checking) return;
    checking = true;
    try {
      state.stats.checks++;
      const now = await probe();
      if (now !== version) {
        version = now;
        requestDrain(state);
      } else if (Date.now() - state.lastPruneAt >= PRUNE_EVERY_MS) {
        void inTurn(state, () => pruneSoon(state));
      }
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
  })();
  return {
    ready,
    stop: () => {
      stopped = true;
      if (timer) clearInterval(timer);
    },
  };
}

