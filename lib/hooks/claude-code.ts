import "server-only";
import { z } from "zod";
import { databaseUrl } from "../config";
import { namedFolderSchema } from "../caller";
import { oneLine, quotedOneLine } from "../one-line";
import { sessionStartPickup, stopReminder } from "../pickup";
import { describeFieldErrors, fieldErrorsOf } from "../validation";
import { busySkipNote } from "./busy-wait-bound";
import { byDeadline, gaveUpOnDatabase, hookDeadline, TIMED_OUT } from "./deadline";
import { hookDatabaseProblem } from "./older-database";

/**
 * Claude Code's hooks as a door to lib/pickup: the hook's JSON from standard input in, what
 * Claude Code reads on standard output out. A hook never stands in a session's way: whatever
 * goes wrong (malformed input, no database or an unusable one, a folder without git) ends with
 * nothing on stdout and one line for stderr, and the command exits 0.
 */
export const HOOK_EVENTS = ["session-start", "stop"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** What the command prints: `stdout` for Claude Code (may be empty), `note` one line for stderr (or none). */
export type HookOutcome = { stdout: string; note: string | null };

const sessionStartInput = z.looseObject({
  cwd: namedFolderSchema,
  source: z.string().max(64).optional(),
  session_id: z.string().max(256).optional(),
});
const stopInput = z.looseObject({
  cwd: namedFolderSchema,
  session_id: z.string({ error: "session_id is required" }).min(1).max(256),
  stop_hook_active: z.boolean().optional(),
});

function parseHookInput<Schema extends z.ZodType>(schema: Schema, text: string): z.output<Schema> | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "standard input is not JSON (a Claude Code hook's input is one JSON object)";
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : `the hook input is not usable: ${describeFieldErrors(fieldErrorsOf(parsed.error))}`;
}

const silent = (note: string | null = null): HookOutcome => ({ stdout: "", note });

/**
 * A SQLite database must exist already: a hook never creates one (nothing can be waiting in it).
 * A PostgreSQL one is the team server's, there before any hook runs. Nor does a hook migrate one
 * (lib/hooks/older-database.ts).
 */
async function databaseProblem(): Promise<string | null> {
  const problem = await hookDatabaseProblem(databaseUrl());
  if (!problem) return null;
  return "missing" in problem ? `no Baton database at ${problem.missing} yet, so nothing waits` : problem.older;
}

async function sessionStart(text: string): Promise<HookOutcome> {
  const input = parseHookInput(sessionStartInput, text);
  if (typeof input === "string") return silent(input);
  const problem = await databaseProblem();
  if (problem) return silent(problem);
  const pickup = await sessionStartPickup({ folder: input.cwd, source: input.source });
  if (!pickup) return silent(`${quotedOneLine(input.cwd)} is not inside a git repository (or git is not installed): nothing to pick up`);
  if (!pickup.context) return silent();
  return { stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: pickup.context } })}\n`, note: null };
}

async function stop(text: string): Promise<HookOutcome> {
  const input = parseHookInput(stopInput, text);
  if (typeof input === "string") return silent(input);
  const problem = await databaseProblem();
  if (problem) return silent(problem);
  const { inRepository, reminder } = await stopReminder({ folder: input.cwd, sessionId: input.session_id, stopHookActive: input.stop_hook_active === true });
  if (!inRepository) return silent(`${quotedOneLine(input.cwd)} is not inside a git repository (or git is not installed): no handoffs to remind of`);
  if (!reminder) return silent();
  return { stdout: `${JSON.stringify({ decision: "block", reason: reminder })}\n`, note: null };
}

/**
 * Runs one hook on its input text; never throws, and answers by `deadline` (a time, ms; see
 * lib/hooks/deadline.ts), else gives up (`timedOut`).
 */
export async function runHook(event: HookEvent, text: string, deadline: number = hookDeadline()): Promise<HookOutcome & { timedOut?: true }> {
  try {
    const outcome = await byDeadline(event === "session-start" ? sessionStart(text) : stop(text), deadline);
    return outcome === TIMED_OUT ? { ...silent(gaveUpOnDatabase()), timedOut: true } : outcome;
  } catch (error) {
    // Busy is no misconfiguration, and nobody sends a hook again: the next session's hook tries anew.
    const busy = busySkipNote(error, `the next ${event} hook reads it again`);
    if (busy) return silent(busy);
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return silent(`could not use the Baton database (${oneLine(reason)}); check BATON_DATA_DIR / DATABASE_URL`);
  }
}
