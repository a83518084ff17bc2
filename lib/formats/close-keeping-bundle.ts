import "server-only";
import { write, type Tx } from "../database";
import { closeHandoffIn, loadHandoff } from "../handoffs/store";
import type { HandoffView } from "../handoffs/views";
import { keepSummaryFindableIn } from "../search";
import { mirrorBlob } from "./artifact-store";
import type { Bundle } from "./bundle";
import { recordBundleIn, renderSnapshot } from "./export-handoff";
import { loadSnapshot } from "./load-snapshot";
import { keptBundleOf } from "./store";

export type ClosedWithBundle = { handoff: HandoffView; artifactId: string | null };

/**
 * Closes a handoff in the caller's transaction, the whole thread (cut at its last entry) first
 * recorded as its `close_archive` bundle, bytes included, beside the wipe: either both happen or
 * neither. Answers the bundle's text too, for the artifact folder's copy once the transaction is
 * over. A thread with no entries closes with no bundle; closing a completed one again returns
 * its kept bundle.
 */
async function closeArchivingIn(tx: Tx, id: string): Promise<ClosedWithBundle & { bundle: string | null }> {
  // Writers of this thread wait until it is closed: an entry added meanwhile would be wiped unkept.
  await loadHandoff(tx, id, { lock: true });
  const snapshot = await loadSnapshot(tx, id);
  if (snapshot.handoff.status === "completed") return { handoff: snapshot.handoff, artifactId: await keptBundleOf(tx, id), bundle: null };
  if (snapshot.entries.length === 0) return { handoff: await closeHandoffIn(tx, id), artifactId: null, bundle: null };
  // The archive names this thread as its source cut, even for a child that added nothing to its bundle.
  const rendered = renderSnapshot({ ...snapshot, reuseSourceDocument: false }, "bundle");
  const artifactId = await recordBundleIn(tx, id, rendered, "close_archive");
  // The entries go; what the kept bundle says of them stays findable.
  await keepSummaryFindableIn(tx, id, (JSON.parse(rendered.text) as Bundle).summary_markdown);
  return { handoff: await closeHandoffIn(tx, id), artifactId, bundle: rendered.text };
}

/**
 * Closes a handoff but keeps its history as a context bundle (see closeArchivingIn), then copies
 * the bundle to the artifact folder.
 */
export async function closeKeepingBundle(id: string): Promise<ClosedWithBundle> {
  const { bundle, ...closed } = await write((tx) => closeArchivingIn(tx, id));
  if (bundle !== null) mirrorBlob(bundle);
  return closed;
}
