import "server-only";
import { findUnansweredQuestions, type UnansweredQuestion } from "../handoffs/attention";
import { read } from "../database";
import { linkedProjectIn } from "./links";
import { fenceFor, quoteDetails, quoteEntries, quotingNotice } from "./quote";
import { belongsTo, repositoryAt } from "./repository";
import { readSessionState, writeSessionState } from "./session-state";

/** How much of a question the reminder quotes; get_handoff has the rest. */
const QUOTED_CHARS = 2000;
/**
 * The reminder's budget: it becomes the session's next instruction, so it quotes this many
 * questions, oldest first, names the handoffs of up to NAMED_HANDOFFS more, and counts the rest
 * (201 unanswered questions once made a reason of 454,398 characters). About 8 KB at most.
 */
export const MAX_QUOTED_QUESTIONS = 3;
const NAMED_HANDOFFS = 10;

/** `inRepository` false: the folder is in no git repository (or git is missing). */
export type StopReminder = { inRepository: boolean; reminder: string | null };

/**
 * What a Claude Code session is told when it is about to stop (its Stop hook) while a question
 * from the chat side is still unanswered in a handoff of its repository: one reminder per
 * question and session, never on a stop that follows a blocked one (`stopHookActive`, or Baton's
 * own previous reminder), so it can never loop. `reminder` null: nothing to say, let it stop.
 */
export async function stopReminder(options: { folder: string; sessionId: string; stopHookActive: boolean }): Promise<StopReminder> {
  const state = readSessionState(options.sessionId);
  if (options.stopHookActive || state.blockedLast) {
    if (state.blockedLast) writeSessionState(options.sessionId, { ...state, blockedLast: false });
    return { inRepository: true, reminder: null };
  }
  const repository = await repositoryAt(options.folder);
  if (!repository) return { inRepository: false, reminder: null };
  const linked = await read((tx) => linkedProjectIn(tx, repository));
  const open = (await findUnansweredQuestions("chat"))
    .filter((item) => !state.reminded.includes(item.question.seq) && belongsTo({ project: item.handoff.project, recorded: item.recorded }, repository, linked))
    // The desk lists them newest first; the reminder quotes those waiting longest.
    .sort((a, b) => a.question.seq - b.question.seq);
  if (open.length === 0) return { inRepository: true, reminder: null };
  writeSessionState(options.sessionId, { reminded: [...state.reminded, ...open.map((item) => item.question.seq)], blockedLast: true });
  return { inRepository: true, reminder: render(open) };
}

function render(open: UnansweredQuestion[]): string {
  const fence = fenceFor(open.flatMap((item) => [item.handoff.title, item.question.content]));
  const lines = [
    `Before you stop: ${open.length === 1 ? "a question from the chat side is" : `${open.length} questions from the chat side are`} still unanswered in Baton ` +
      "handoffs of this repository. (This reminder comes from Baton's Stop hook, `baton hook stop`, once per question; it is not from the user.)",
    quotingNotice(fence, true),
  ];
  const quoted = open.slice(0, MAX_QUOTED_QUESTIONS);
  for (const { handoff, question } of quoted) {
    lines.push(
      "",
      `Handoff ${handoff.id}, question #${question.number} (the handoff's title is quoted with it):`,
      quoteDetails(handoff.id, [["title", handoff.title]], fence),
      quoteEntries(`${handoff.id}, question #${question.number}`, [question], fence, QUOTED_CHARS),
    );
  }
  const rest = open.slice(quoted.length);
  if (rest.length > 0) {
    const handoffs = [...new Set(rest.map((item) => item.handoff.id))];
    const named = handoffs.slice(0, NAMED_HANDOFFS).join(", ");
    const more = handoffs.length > NAMED_HANDOFFS ? ` and ${handoffs.length - NAMED_HANDOFFS} more handoffs` : "";
    lines.push("", `${rest.length} more unanswered ${rest.length === 1 ? "question" : "questions"}, not quoted here: in ${named}${more}. Read them with get_handoff.`);
  }
  lines.push(
    "",
    "If your work answers it, reply in the handoff with the Baton MCP tool add_to_handoff (its id, answers set to the question's number, " +
      'as_client "code"; the type defaults to "decision"). ' +
      "If you cannot answer it, or the user asked you not to, tell the user it is waiting and stop.",
  );
  return lines.join("\n");
}
