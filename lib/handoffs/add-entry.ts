import { z } from "zod";
import { writeTransaction } from "../db";
import { Conflict } from "../errors";
import { parseInput, type DoorInput } from "../validation";
import { loadHandoff } from "./load";
import { clientSideSchema, contentSchema, entryTypeSchema, handoffIdSchema } from "./schemas";
import { toEntryView, toHandoffView, type EntryView, type HandoffView } from "./views";

export const addEntryInput = z.object({
  id: handoffIdSchema,
  type: entryTypeSchema,
  content: contentSchema,
  asClient: clientSideSchema.default("chat"),
});

export type AddEntryOptions = DoorInput<typeof addEntryInput>;
export type AddedEntry = { handoff: HandoffView; entry: EntryView };

function completedConflict(id: string): Conflict {
  return new Conflict(`handoff ${id} is completed; entries can no longer be added (start a new handoff to go on)`);
}

/** Appends an entry to an active thread; the writer has seen what it wrote, so its cursor moves to it. */
export async function addEntry(options: AddEntryOptions): Promise<AddedEntry> {
  const input = parseInput(addEntryInput, options);
  const now = new Date();
  return writeTransaction(async (tx) => {
    const existing = await loadHandoff(tx, input.id);
    if (existing.status !== "active") throw completedConflict(input.id);
    const entry = await tx.entry.create({
      data: { handoffId: input.id, fromClient: input.asClient, type: input.type, content: input.content, createdAt: now },
    });
    const handoff = await tx.handoff.update({
      where: { id: input.id },
      data: {
        updatedAt: now,
        ...(input.asClient === "chat" ? { chatLastSeen: entry.seq } : { codeLastSeen: entry.seq }),
      },
    });
    return { handoff: toHandoffView(handoff), entry: toEntryView(entry) };
  });
}
