import "server-only";
import { describeDatabase } from "../config";

/**
 * How long a Claude Code hook of Baton's may take, reading its input and waiting for its database
 * together. Claude Code gives a hook 30 s and the session waits for SessionStart; a PostgreSQL that
 * accepts connections and never answers once held a hook 30.2 s. Past this the hook gives up with
 * its one line and exits 0.
 */
export const HOOK_DEADLINE_MS = 5_000;

/** The moment a hook started now must be done by. */
export const hookDeadline = (): number => Date.now() + HOOK_DEADLINE_MS;

export const TIMED_OUT = Symbol("timed out");

/** `work`'s result, or TIMED_OUT once `deadline` (a time, ms) has passed; `work` is left running. */
export async function byDeadline<T>(work: Promise<T>, deadline: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a hook says when its database did not answer in time. */
export const gaveUpOnDatabase = (): string =>
  `the Baton database did not answer within ${HOOK_DEADLINE_MS / 1000} s (${describeDatabase()}); gave up so the session is not held`;

/**
 * Ends the process soon after a hook gave up: a connection that never answers would keep it (and
 * the session) waiting, and fail later with a stack of its own.
 */
export function exitSoonAfterGivingUp(): void {
  setTimeout(() => process.exit(0), 100).unref();
}
