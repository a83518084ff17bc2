import { z } from "zod";
import { readTransaction } from "../db";
import { parseInput, type DoorInput } from "../validation";
import { loadHandoff } from "./load";
import { clientSideSchema, handoffIdSchema } from "./schemas";
import { cursorOf, toEntryView, toHandoffView, type EntryView, type HandoffView } from "./views";

export const getHandoffInput = z.object({
  id: handoffIdSchema,
  asClient: clientSideSchema.default("chat"),
});

export type GetHandoffOptions = DoorInput<typeof getHandoffInput>;
export type HandoffThread = {
  handoff: HandoffView;
  entries: EntryView[];
  /** Entries past the reading side's cursor. */
  newEntries: EntryView[];
  newCount: number;
};

/** The thread as one side sees it. Reading never moves a cursor. */
export async function getHandoff(options: GetHandoffOptions): Promise<HandoffThread> {
  const input = parseInput(getHandoffInput, options);
  return readTransaction(async (tx) => {
    const handoff = toHandoffView(await loadHandoff(tx, input.id));
    const entries = (await tx.entry.findMany({ where: { handoffId: input.id }, orderBy: { seq: "asc" } })).map(
      toEntryView,
    );
    const cursor = cursorOf(handoff, input.asClient);
    const newEntries = entries.filter((entry) => entry.seq > cursor);
    return { handoff, entries, newEntries, newCount: newEntries.length };
  });
}
