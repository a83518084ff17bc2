import "server-only";
import { closeDatabase } from "../../database";
import { boundBusyWaitForHook } from "../../hooks/busy-wait-bound";
import { HOOK_EVENTS, runHook, type HookEvent } from "../../hooks/claude-code";
import { exitSoonAfterGivingUp, HOOK_DEADLINE_MS, hookDeadline } from "../../hooks/deadline";
import { readHookInput } from "../read-bounded";

const USAGE = `usage: baton hook session-start|stop

Claude Code's hooks, as \`baton setup claude-code\` adds them to .claude/settings.local.json (or
~/.claude/settings.json); each reads the hook's JSON on standard input.
  session-start  handoffs waiting for the code side in this repository (by origin, top folder or
                 the project \`baton link\` set), their new entries quoted, for the session's context
  stop           a one-time reminder when a question from chat is still unanswered in one
Never in a session's way: on bad input, no database or no repository it prints nothing on
standard output, one line on standard error, and exits 0.`;

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
  boundBusyWaitForHook();
  const deadline = hookDeadline();
  // A person at a terminal gets the usage note, not a hang waiting for end of input.
  const input = process.stdin.isTTY ? { text: "", over: false, timedOut: false } : await readHookInput(process.stdin, deadline);
  if (input.timedOut) {
    process.stderr.write(`baton hook ${event}: standard input held no whole JSON object and did not end within ${HOOK_DEADLINE_MS / 1000} s; gave up so the session is not held\n`);
    return 0;
  }
  const outcome = await runHook(event as HookEvent, input.over ? "" : input.text, deadline);
  if (outcome.stdout) process.stdout.write(outcome.stdout);
  if (outcome.note) process.stderr.write(`baton hook ${event}: ${outcome.note}\n`);
  if (outcome.timedOut) {
    exitSoonAfterGivingUp();
    return 0;
  }
  await closeDatabase();
  return 0;
}
