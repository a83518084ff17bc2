import "server-only";
import { MAX_INT4, type Tx } from "../database";
import { Invalid } from "../errors";
import { entriesOf, loadHandoff } from "../handoffs/store";
import { toHandoffView } from "../handoffs/views";
import { sourceOf, toSourceRecord } from "./sources";
import type { HandoffSnapshot } from "./types";

/** Every entry of a thread: the largest LIMIT an int4 parameter carries on PostgreSQL. */
const ALL_ENTRIES = MAX_INT4;

/**
 * The thread cut at `cut` (default: its last entry) with its source. A cut must be the seq of
 * one of the thread's entries, so "cut at #N" always names something that was written.
 */
export async function loadSnapshot(tx: Tx, id: string, cut: number | null = null): Promise<HandoffSnapshot> {
  const handoff = toHandoffView(await loadHandoff(tx, id));
  const all = await entriesOf(tx, id, {}, "asc", ALL_ENTRIES);
  const source = await sourceOf(tx, id);
  if (cut !== null && !all.some((entry) => entry.seq === cut)) {
    const range = all.length > 0 ? `its entries have seqs ${all[0].seq}–${all.at(-1)!.seq}` : "it has no entries";
    throw new Invalid(`handoff ${id} has no entry with seq ${cut}; ${range}`, { cut: [`must be the seq of one of the thread's entries; ${range}`] });
  }
  const entries = all.filter((entry) => cut === null || entry.seq <= cut);
  return {
    handoff,
    entries,
    cut: cut ?? entries.at(-1)?.seq ?? null,
    source: source ? toSourceRecord(source) : null,
    reuseSourceDocument: true,
  };
}
