import "server-only";
import { closeHandoffIn } from "../handoffs/store";
import type { HandoffView } from "../handoffs/views";
import { keepSummaryFindableIn } from "../search";
import type { Sql } from "../sqlite";
import type { Bundle } from "./bundle";
import { renderSnapshot, storeBundleIn } from "./export-handoff";
import { loadSnapshot } from "./load-snapshot";
import { keptBundleOf } from "./store";

export type ClosedWithBundle = { handoff: HandoffView; artifactId: string | null };

/**
 * Closes a handoff but keeps its history, inside the caller's transaction: the bundle of the
 * whole thread (cut at its last entry) is written to the artifact store (fsync'd) and recorded
 * as the `close_archive` artifact before lib/handoffs wipes the entries. If the bundle cannot be
 * written nothing is wiped. A thread with no entries closes with no bundle; closing a completed
 * one again returns its kept bundle.
 */
export function closeKeepingBundleIn(tx: Sql, id: string): ClosedWithBundle {
  const snapshot = loadSnapshot(tx, id);
  if (snapshot.handoff.status === "completed") return { handoff: snapshot.handoff, artifactId: keptBundleOf(tx, id) };
  // The archive names this thread as its source cut, even for a child that added nothing to its bundle.
  const archive = { ...snapshot, reuseSourceDocument: false };
  if (snapshot.entries.length === 0) return { handoff: closeHandoffIn(tx, id), artifactId: null };
  const rendered = renderSnapshot(archive, "bundle");
  const artifactId = storeBundleIn(tx, id, rendered, "close_archive");
  // The entries go; what the kept bundle says of them stays findable.
  keepSummaryFindableIn(tx, id, (JSON.parse(rendered.text) as Bundle).summary_markdown);
  return { handoff: closeHandoffIn(tx, id), artifactId };
}
