import "server-only";
import { read, MAX_INT4 } from "../database";
import { gitStateForWrite } from "../git/read-state";
import type { Redaction } from "../secrets";
import { operationInput, parseInput, wholeNumberParam, type DoorInput } from "../validation";
import { Invalid } from "../errors";
import { ANSWERING_TYPE, ENTRY_TYPES, contentSchema, entryTypeSchema, handoffIdSchema } from "./schemas";
import { cleanEntry } from "./clean-texts";
import { appendEntry, checkAnswersIn } from "./store";
import type { EntryView, HandoffView } from "./views";
import { asClientSchema, namedFolderSchema } from "../caller";

const addEntryInput = operationInput({
  id: handoffIdSchema,
  /** Required, unless the entry answers a question: then it defaults to the answering type. */
  type: entryTypeSchema.optional(),
  content: contentSchema,
  /** The number of the question (in this thread) the entry answers. */
  answers: wholeNumberParam("answers", 1, MAX_INT4),
  asClient: asClientSchema,
  /** The writer's working folder; recorded for the code side, whose entries describe the code. */
  repoPath: namedFolderSchema.optional(),
}, { target: "id" });

export type AddEntryOptions = DoorInput<typeof addEntryInput>;
export type AddedEntry = { handoff: HandoffView; entry: EntryView; redactions: Redaction[] };

/**
 * Appends an entry to an active thread (a completed one refuses with a Conflict). With `answers`,
 * the entry answers that question: the question must be in the thread, and `type` defaults to
 * the answering type.
 */
export async function addEntry(options: AddEntryOptions): Promise<AddedEntry> {
  const input = parseInput(addEntryInput, options);
  const type = input.type ?? (input.answers !== undefined ? ANSWERING_TYPE : undefined);
  if (type === undefined) throw new Invalid(`type is required: one of ${ENTRY_TYPES.join(", ")}`, { type: ["is required"] });
  if (input.answers !== undefined) await read((tx) => checkAnswersIn(tx, input.id, input.answers!));
  const git = input.repoPath && input.asClient === "code" ? await gitStateForWrite(input.repoPath) : null;
  const entry = cleanEntry({ fromClient: input.asClient, type, content: input.content, git, answers: input.answers ?? null });
  return appendEntry(input.id, entry);
}
