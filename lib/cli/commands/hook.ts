import "server-only";
import { closeDatabase } from "../../database";
import { HOOK_EVENTS, runHook, type HookEvent } from "../../hooks/claude-code";
import { MAX_HOOK_INPUT_BYTES, readBounded } from "../read-bounded";

const USAGE = `usage: baton hook session-start|stop

Claude Code's hooks, as \`baton setup claude-code\` adds them to .claude/settings.json; each reads
the hook's JSON on standard input.
  session-start  handoffs waiting for the code side in this repository (by origin, top folder or
                 the project \`baton link\` set), their new entries quoted, for the session's context
  stop           a one-time reminder when a question from chat is still unanswered in one
Never in a session's way: on bad input, no database or no repository it prints nothing on
standard output, one line on standard error, and exits 0.`;

async function readInput(): Promise<string> {
  // A person at a terminal gets the usage note, not a hang waiting for end of input.
  if (process.stdin.isTTY) return "";
  const { text, over } = await readBounded(process.stdin, MAX_HOOK_INPUT_BYTES);
  return over ? "" : text;
}

/** `baton hook <event>`: exits 0 whatever happens (exit 2 would block the session in Claude Code); 1 only for an unknown event. */
export async function run(args: string[]): Promise<number> {
  const [event, ...rest] = args;
  if (event === "--help" || event === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!(HOOK_EVENTS as readonly string[]).includes(event ?? "") || rest.length > 0) {
    process.stderr.write(`baton hook: give one of ${HOOK_EVENTS.join(", ")}\n\n${USAGE}\n`);
    return 1;
  }
  const outcome = await runHook(event as HookEvent, await readInput());
  if (outcome.stdout) process.stdout.write(outcome.stdout);
  if (outcome.note) process.stderr.write(`baton hook ${event}: ${outcome.note}\n`);
  if (outcome.timedOut) {
    // A connection that never answers would keep the process (and the session) waiting on it.
    setTimeout(() => process.exit(0), 100).unref();
    return 0;
  }
  await closeDatabase();
  return 0;
}
