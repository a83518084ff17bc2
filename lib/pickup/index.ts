/**
 * lib/pickup: what a coding session in a repository is told without anyone pasting an ID. Which
 * handoffs belong to a repository (repository.ts: the same origin, else the same top folder, or
 * the project the repository is linked to with `baton link`, kept by links.ts in
 * repository_links), the note a session starts with (session-start.ts), the reminder a session
 * gets before it stops with a question unanswered (stop-reminder.ts). Handoff text in either is
 * quoted material with its origin said (quote.ts), never instructions.
 */
import "server-only";

export { linkRepository, listRepositoryLinks, repositoryLinkOf, unlinkRepository, type RepositoryLink } from "./links";
export { belongsTo, repositoryAt, type Repository } from "./repository";
export { handoffsWaitingIn, MAX_QUOTED_HANDOFFS, sessionStartPickup, type PickedHandoff, type SessionPickup } from "./session-start";
export { stopReminder, type StopReminder } from "./stop-reminder";
