import { customAlphabet } from "nanoid";
import type { Tx } from "../db";
import { NANOID_ALPHABET, titleSchema } from "../handoffs";
import { toEntryView, toHandoffView, type EntryView, type HandoffView } from "../handoffs/views";
import { parseInput } from "../validation";
import type { DraftEntry } from "./types";

const newHandoffSuffix = customAlphabet(NANOID_ALPHABET, 21);

export type CreateThreadInOptions = { title: string; project: string | null; entries: DraftEntry[]; at: Date };

/**
 * Creates a thread with its entries inside the caller's transaction, as `createHandoff` does
 * for one entry: each writing side's cursor moves to the last entry it wrote.
 */
export async function createThreadIn(tx: Tx, options: CreateThreadInOptions): Promise<{ handoff: HandoffView; entries: EntryView[] }> {
  const title = parseInput(titleSchema, options.title);
  const id = `hof_${newHandoffSuffix()}`;
  await tx.handoff.create({ data: { id, title, project: options.project, createdAt: options.at, updatedAt: options.at } });
  const entries: EntryView[] = [];
  for (const entry of options.entries) {
    const row = await tx.entry.create({
      data: { handoffId: id, fromClient: entry.fromClient, type: entry.type, content: entry.content, createdAt: options.at },
    });
    entries.push(toEntryView(row));
  }
  const lastBy = (side: string) => entries.findLast((entry) => entry.fromClient === side)?.seq;
  const chat = lastBy("chat");
  const code = lastBy("code");
  const handoff = await tx.handoff.update({
    where: { id },
    data: { ...(chat !== undefined && { chatLastSeen: chat }), ...(code !== undefined && { codeLastSeen: code }) },
  });
  return { handoff: toHandoffView(handoff), entries };
}
