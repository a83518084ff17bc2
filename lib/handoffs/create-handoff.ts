import { customAlphabet } from "nanoid";
import { z } from "zod";
import { writeTransaction } from "../db";
import { parseInput, type DoorInput } from "../validation";
import { NANOID_ALPHABET, clientSideSchema, contentSchema, optionalProjectSchema, titleSchema } from "./schemas";
import { toEntryView, toHandoffView, type EntryView, type HandoffView } from "./views";

const newHandoffSuffix = customAlphabet(NANOID_ALPHABET, 21);

export const createHandoffInput = z.object({
  title: titleSchema,
  content: contentSchema,
  project: optionalProjectSchema,
  asClient: clientSideSchema.default("chat"),
});

export type CreateHandoffOptions = DoorInput<typeof createHandoffInput>;
export type CreatedHandoff = { handoff: HandoffView; entries: EntryView[] };

/**
 * Starts a thread: `content` becomes its first `context` entry and the creator's cursor is set
 * to that entry's seq (seqs are global, so it is whatever the next seq happens to be).
 */
export async function createHandoff(options: CreateHandoffOptions): Promise<CreatedHandoff> {
  const input = parseInput(createHandoffInput, options);
  const now = new Date();
  return writeTransaction(async (tx) => {
    const id = `hof_${newHandoffSuffix()}`;
    await tx.handoff.create({
      data: { id, title: input.title, project: input.project ?? null, createdAt: now, updatedAt: now },
    });
    const entry = await tx.entry.create({
      data: { handoffId: id, fromClient: input.asClient, type: "context", content: input.content, createdAt: now },
    });
    const handoff = await tx.handoff.update({
      where: { id },
      data: input.asClient === "chat" ? { chatLastSeen: entry.seq } : { codeLastSeen: entry.seq },
    });
    return { handoff: toHandoffView(handoff), entries: [toEntryView(entry)] };
  });
}
