import { writeTransaction } from "../db";
import { closeHandoffInput } from "../handoffs/close-handoff";
import { closeHandoffIn } from "../handoffs/close-handoff";
import type { HandoffView } from "../handoffs";
import { parseInput } from "../validation";
import { renderSnapshot, storeBundleIn } from "./export-thread";
import { loadSnapshot } from "./load-snapshot";

export type CloseHandoffKeepingBundleOptions = { id: string };
export type ClosedWithBundle = { handoff: HandoffView; artifactId: string | null };

/**
 * Closes a handoff but keeps its history: the bundle of the whole thread (cut at its last entry)
 * is written to the artifact store and recorded as the `close_archive` artifact, then the entries
 * are wiped, all in one transaction. If the bundle cannot be written nothing is wiped. A thread
 * with no entries closes with no bundle; closing a completed one again returns its kept bundle.
 */
export async function closeHandoffKeepingBundle(options: CloseHandoffKeepingBundleOptions): Promise<ClosedWithBundle> {
  const { id } = parseInput(closeHandoffInput, options);
  return writeTransaction(async (tx) => {
    const snapshot = await loadSnapshot(tx, id);
    if (snapshot.handoff.status === "completed") {
      const kept = await tx.artifact.findFirst({ where: { handoffId: id, purpose: "close_archive" }, orderBy: { createdAt: "desc" } });
      return { handoff: snapshot.handoff, artifactId: kept?.id ?? null };
    }
    // The archive names this thread as its source cut, even for a child that added nothing to its bundle.
    const archive = { ...snapshot, reuseSourceDocument: false };
    const artifactId = snapshot.entries.length > 0 ? await storeBundleIn(tx, id, renderSnapshot(archive, "bundle"), "close_archive") : null;
    return { handoff: await closeHandoffIn(tx, id), artifactId };
  });
}
