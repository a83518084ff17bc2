import "server-only";
import { z } from "zod";
import { gitStateForWrite } from "../git/read-state";
import type { Redaction } from "../secrets";
import { parseInput, type DoorInput } from "../validation";
import { contentSchema, entryTypeSchema, handoffIdSchema } from "./schemas";
import { appendEntry, cleanEntry } from "./store";
import type { EntryView, HandoffView } from "./views";
import { asClientSchema, namedFolderSchema } from "../caller";

const addEntryInput = z.object({
  id: handoffIdSchema,
  type: entryTypeSchema,
  content: contentSchema,
  asClient: asClientSchema,
  /** The writer's working folder; recorded for the code side, whose entries describe the code. */
  repoPath: namedFolderSchema.optional(),
});

export type AddEntryOptions = DoorInput<typeof addEntryInput>;
export type AddedEntry = { handoff: HandoffView; entry: EntryView; redactions: Redaction[] };

/** Appends an entry to an active thread (a completed one refuses with a Conflict). */
export async function addEntry(options: AddEntryOptions): Promise<AddedEntry> {
  const input = parseInput(addEntryInput, options);
  const git = input.repoPath && input.asClient === "code" ? await gitStateForWrite(input.repoPath) : null;
  const entry = cleanEntry({ fromClient: input.asClient, type: input.type, content: input.content, git });
  return appendEntry(input.id, entry);
}
