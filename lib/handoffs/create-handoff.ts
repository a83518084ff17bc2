import "server-only";
import { gitStateForWrite } from "../git/read-state";
import { write } from "../database";
import type { Redaction } from "../secrets";
import { operationInput, parseInput, type DoorInput } from "../validation";
import { contentSchema, optionalProjectSchema, titleSchema } from "./schemas";
import { cleanHandoffTexts } from "./clean-texts";
import { createHandoffIn } from "./store";
import type { EntryView, HandoffView } from "./views";
import { asClientSchema, namedFolderSchema } from "../caller";

const createHandoffInput = operationInput({
  title: titleSchema,
  content: contentSchema,
  project: optionalProjectSchema,
  asClient: asClientSchema,
  /** The writer's working folder: where its repository stands is recorded with the handoff. */
  repoPath: namedFolderSchema.optional(),
});

export type CreateHandoffOptions = DoorInput<typeof createHandoffInput>;
export type CreatedHandoff = { handoff: HandoffView; entries: EntryView[]; redactions: Redaction[] };

/** Starts a thread: `content` becomes its first `context` entry, seen by its creator. */
export async function createHandoff(options: CreateHandoffOptions): Promise<CreatedHandoff> {
  const input = parseInput(createHandoffInput, options);
  const git = input.repoPath ? await gitStateForWrite(input.repoPath) : null;
  const texts = cleanHandoffTexts(input.title, [{ fromClient: input.asClient, type: "context", content: input.content }]);
  return write((tx) => createHandoffIn(tx, { texts, project: input.project ?? null, git }));
}
