import "server-only";
import { Invalid } from "../errors";
import { entriesOf, loadHandoff } from "../handoffs/store";
import { toHandoffView } from "../handoffs/views";
import type { Sql } from "../sqlite";
import { sourceOf, toSourceRecord } from "./store";
import type { HandoffSnapshot } from "./types";

/**
 * The thread cut at `cut` (default: its last entry) with its source. A cut must be the seq of
 * one of the thread's entries, so "cut at #N" always names something that was written.
 */
export function loadSnapshot(tx: Sql, id: string, cut: number | null = null): HandoffSnapshot {
  const handoff = toHandoffView(loadHandoff(tx, id));
  const all = entriesOf(tx, id, {}, "asc", Number.MAX_SAFE_INTEGER);
  const source = sourceOf(tx, id);
  if (cut !== null && !all.some((entry) => entry.seq === cut)) {
    const range = all.length > 0 ? `its entries are #${all[0].seq}–#${all.at(-1)!.seq}` : "it has no entries";
    throw new Invalid(`handoff ${id} has no entry #${cut}; ${range}`, { cut: [`must be the seq of one of the thread's entries; ${range}`] });
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
