import "server-only";
import { Conflict } from "../errors";

export function endedConflict(shortId: string, verb: string): Conflict {
  return new Conflict(`agent ${shortId} has ended; ${verb} an active agent instead (its successor, if it handed off)`);
}

export function alreadyHandedOffConflict(shortId: string): Conflict {
  return new Conflict(
    `agent ${shortId} has already handed off; an agent hands off once, so the next handoff belongs to its successor`,
  );
}

export function sessionTakenConflict(sessionId: string): Conflict {
  return new Conflict(`session id ${sessionId} is already registered to another agent; each session is one agent`);
}
