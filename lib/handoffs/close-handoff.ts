import { z } from "zod";
import { writeTransaction, type Tx } from "../db";
import { parseInput, type DoorInput } from "../validation";
import { loadHandoff } from "./load";
import { handoffIdSchema } from "./schemas";
import { toHandoffView, type HandoffView } from "./views";

export const closeHandoffInput = z.object({ id: handoffIdSchema });

export type CloseHandoffOptions = DoorInput<typeof closeHandoffInput>;

/**
 * Wipes a thread's entries and marks it completed, inside the caller's transaction; the row stays.
 * Closing a completed handoff again changes nothing.
 */
export async function closeHandoffIn(tx: Tx, id: string): Promise<HandoffView> {
  const existing = await loadHandoff(tx, id);
  if (existing.status === "completed") return toHandoffView(existing);
  const now = new Date();
  await tx.entry.deleteMany({ where: { handoffId: id } });
  const closed = await tx.handoff.update({
    where: { id },
    data: { status: "completed", closedAt: now, updatedAt: now },
  });
  return toHandoffView(closed);
}

/** Closes a handoff: one transaction deletes every entry and marks it completed. */
export async function closeHandoff(options: CloseHandoffOptions): Promise<HandoffView> {
  const input = parseInput(closeHandoffInput, options);
  return writeTransaction((tx) => closeHandoffIn(tx, input.id));
}
