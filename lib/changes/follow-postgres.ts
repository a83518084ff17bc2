import "server-only";
import { listen, type Listening } from "../database";
import { latestChangeSeq, requestDrain, type FeedState, type Follower } from "./fan-out";

/**
 * PostgreSQL's follower (see fan-out.ts): LISTEN on the channel the triggers notify at commit
 * (lib/database's listen(), which reconnects), a drain per notification, a slow safety poll, and
 * a quick second look when a gap was held back.
 */

/** The channel PostgreSQL's `changes_notify` trigger notifies. */
export const NOTIFY_CHANNEL = "baton_changes";
/** PostgreSQL: read even without a notification this often (a notification lost while reconnecting). */
export const SAFETY_POLL_MS = 5_000;
/** PostgreSQL: how soon a gap held back is looked at again. */
const GAP_RECHECK_MS = 50;

export function followPostgres(state: FeedState): Follower {
  let stopped = false;
  let listening: Listening | null = null;
  let recheck: ReturnType<typeof setTimeout> | null = null;

  const check = () => {
    if (stopped) return;
    state.stats.checks++;
    requestDrain(state, () => {
      recheck ??= setTimeout(() => ((recheck = null), check()), GAP_RECHECK_MS);
      recheck.unref?.();
    });
  };

  const poll = setInterval(check, SAFETY_POLL_MS);
  poll.unref?.();
  const ready = (async () => {
    // Listen first: a change committed after it is notified, one before it is below `last`.
    const opened = await listen({ url: state.url, channel: NOTIFY_CHANNEL, label: "the change feed", onNotify: check });
    if (stopped) return opened.stop();
    listening = opened;
    const latest = await latestChangeSeq();
    if (!stopped) state.last = latest;
  })();
  return {
    ready,
    stop: () => {
      stopped = true;
      clearInterval(poll);
      if (recheck) clearTimeout(recheck);
      listening?.stop();
      listening = null;
    },
  };
}

