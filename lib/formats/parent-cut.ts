import "server-only";
import type { Tx } from "../database";
import { Invalid } from "../errors";
import { HANDOFF_ID_PATTERN } from "../handoffs/schemas";
import { entriesOf, entryRange, findHandoffRowIn } from "../handoffs/store";
import { describeFieldErrors } from "../validation";
import { artifactsOf } from "./sources";
import type { ThreadDraft } from "./types";

/** `number`: the cut entry's number in the parent (#4), while its entries are there. */
export type LinkedParent = { id: string; title: string; number: number | null };

/**
 * The thread of this Baton a bundle's source cut makes the import a child of, or null when it
 * names another system's thread (kept as written, never linked). A cut that names one of ours
 * must be a cut that thread has: the seq of one of its entries, or, once close wiped them, a cut
 * Baton kept a bundle of (its close archive, a stored export). Anything else is refused: any
 * bundle could otherwise link itself under any thread at a seq it never had (seqs are global,
 * so often another thread's entry). Baton's entries have no message ids: its cuts name none.
 */
export async function linkedParentIn(tx: Tx, parent: ThreadDraft["parent"]): Promise<LinkedParent | null> {
  if (!parent || !HANDOFF_ID_PATTERN.test(parent.threadId)) return null;
  const row = await findHandoffRowIn(tx, parent.threadId);
  if (!row) return null;
  const fieldErrors: Record<string, string[]> = {};
  if (parent.messageId !== null) {
    fieldErrors[`${parent.field}.message_id`] = [`must be null: handoff ${row.id} is a thread of this Baton, whose cuts are entry seqs and name no message`];
  }
  const [cut] = await entriesOf(tx, row.id, { gt: parent.seq - 1, lt: parent.seq + 1 }, "asc", 1);
  const hasEntry = cut !== undefined;
  const kept = hasEntry ? [] : (await artifactsOf(tx, row.id)).flatMap((artifact) => (artifact.cut_seq === null ? [] : [artifact.cut_seq]));
  if (!hasEntry && !kept.includes(parent.seq)) {
    // Read only for the refusal that quotes it: a thread of 10,000 entries is counted once a refusal needs it.
    const entries = await entryRange(tx, row.id, {});
    const has =
      entries.count > 0
        ? `its entries have seqs ${entries.first}–${entries.last}`
        : `its entries were wiped when it closed${kept.length > 0 ? `; Baton kept it cut at seq ${[...new Set(kept)].sort((a, b) => a - b).join(", ")}` : ""}`;
    fieldErrors[`${parent.field}.seq`] = [`handoff ${row.id} has no entry with seq ${parent.seq}; ${has}`];
  }
  if (Object.keys(fieldErrors).length > 0) throw new Invalid(describeFieldErrors(fieldErrors), fieldErrors);
  return { id: row.id, title: row.title, number: cut?.number ?? null };
}
