import "server-only";
import { z } from "zod";
import { write, type Tx } from "../database";
import { handoffIdSchema } from "../handoffs/schemas";
import { closeHandoffIn, loadHandoff } from "../handoffs/store";
import type { HandoffView } from "../handoffs/views";
import { keepSummaryFindableIn } from "../search";
import { queueEntryEventsBeforeWipeIn } from "../webhooks/queue";
import { operationInput, parseInput, type DoorInput } from "../validation";
import { mirrorBlob } from "./blobs";
import type { Bundle } from "./bundle";
import { recordBundleIn, renderSnapshot } from "./export-handoff";
import { loadSnapshot } from "./load-snapshot";
import { keptBundleOf } from "./sources";

/**
 * Closing a handoff, in one home. lib/handoffs keeps the wipe itself (closeHandoffIn, the only SQL
 * that writes its tables); closing with an archive needs the bundle, which is this module's, so
 * the operation every door calls lives here, above both.
 */
const closeHandoffInput = operationInput({
  id: handoffIdSchema,
  archive: z.boolean({ error: "archive must be true or false" }).default(false),
}, { target: "id" });

export type CloseHandoffOptions = DoorInput<typeof closeHandoffInput>;
export type ClosedHandoff = { handoff: HandoffView; artifactId: string | null };

/**
 * Closes a handoff in the caller's transaction, the whole thread (cut at its last entry) first
 * recorded as its `close_archive` bundle, bytes included, beside the wipe: either both happen or
 * neither. Answers the bundle's text too, for the artifact folder's copy once the transaction is
 * over. A thread with no entries closes with no bundle; closing a completed one again returns
 * its kept bundle.
 */
async function closeArchivingIn(tx: Tx, id: string): Promise<ClosedHandoff & { bundle: string | null }> {
  // Writers of this thread wait until it is closed: an entry added meanwhile would be wiped unkept.
  await loadHandoff(tx, id, { lock: true });
  const snapshot = await loadSnapshot(tx, id, null, "bundle");
  if (snapshot.handoff.status === "completed") return { handoff: snapshot.handoff, artifactId: await keptBundleOf(tx, id), bundle: null };
  if (snapshot.entries.length === 0) return { handoff: await closeHandoffIn(tx, id), artifactId: null, bundle: null };
  await queueEntryEventsBeforeWipeIn(tx, id);
  // The archive names this thread as its source cut, even for a child that added nothing to its bundle.
  const rendered = renderSnapshot({ ...snapshot, reuseSourceDocument: false });
  const artifactId = await recordBundleIn(tx, id, rendered, "close_archive");
  // The entries go; what the kept bundle says of them stays findable.
  await keepSummaryFindableIn(tx, id, (JSON.parse(rendered.text) as Bundle).summary_markdown);
  return { handoff: await closeHandoffIn(tx, id), artifactId, bundle: rendered.text };
}

/** Closes without an archive; entries webhooks have not been told of yet are queued for them first. */
async function wipeIn(tx: Tx, id: string): Promise<HandoffView> {
  // Writers of this thread wait until it is closed: no entry of it is still being written.
  const existing = await loadHandoff(tx, id, { lock: true });
  if (existing.status !== "completed") await queueEntryEventsBeforeWipeIn(tx, id);
  return closeHandoffIn(tx, id);
}

/**
 * The one close, for every door: one transaction deletes every entry and marks the handoff
 * completed (the row stays). With `archive`, the whole thread is first kept as a context bundle
 * in the artifact store (closeArchivingIn), whose id is returned, and the bundle is copied to the
 * artifact folder; closing again returns it again.
 */
export async function closeHandoff(options: CloseHandoffOptions): Promise<ClosedHandoff> {
  const input = parseInput(closeHandoffInput, options);
  if (!input.archive) return write(async (tx) => ({ handoff: await wipeIn(tx, input.id), artifactId: null }));
  const { bundle, ...closed } = await write((tx) => closeArchivingIn(tx, input.id));
  if (bundle !== null) mirrorBlob(bundle);
  return closed;
}
