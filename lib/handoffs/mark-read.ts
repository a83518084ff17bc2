import { z } from "zod";
import { writeTransaction } from "../db";
import { parseInput, type DoorInput } from "../validation";
import { loadHandoff } from "./load";
import { clientSideSchema, handoffIdSchema } from "./schemas";
import { toHandoffView, type HandoffView } from "./views";

export const markReadInput = z.object({
  id: handoffIdSchema,
  asClient: clientSideSchema.default("chat"),
});

export type MarkReadOptions = DoorInput<typeof markReadInput>;

/** Moves one side's cursor to the thread's highest seq. A cursor never moves backward. */
export async function markRead(options: MarkReadOptions): Promise<HandoffView> {
  const input = parseInput(markReadInput, options);
  return writeTransaction(async (tx) => {
    await loadHandoff(tx, input.id);
    const column = input.asClient === "chat" ? "chat_last_seen" : "code_last_seen";
    await tx.$executeRawUnsafe(
      `UPDATE handoffs SET ${column} = MAX(${column},
         (SELECT COALESCE(MAX(seq), 0) FROM handoff_entries WHERE handoff_id = ?))
       WHERE id = ?`,
      input.id,
      input.id,
    );
    return toHandoffView(await loadHandoff(tx, input.id));
  });
}
