import "server-only";
import { z } from "zod";
import { write } from "../database";
import { closeKeepingBundle } from "../formats/close-keeping-bundle";
import { parseInput, type DoorInput } from "../validation";
import { handoffIdSchema } from "./schemas";
import { closeHandoffIn } from "./store";
import type { HandoffView } from "./views";

const closeHandoffInput = z.object({
  id: handoffIdSchema,
  archive: z.boolean({ error: "archive must be true or false" }).default(false),
});

export type CloseHandoffOptions = DoorInput<typeof closeHandoffInput>;
export type ClosedHandoff = { handoff: HandoffView; artifactId: string | null };

/**
 * The one close, for every door: one transaction deletes every entry and marks the handoff
 * completed (the row stays). With `archive`, the whole thread is first kept as a context bundle
 * in the artifact store (lib/formats), whose id is returned; closing again returns it again.
 */
export async function closeHandoff(options: CloseHandoffOptions): Promise<ClosedHandoff> {
  const input = parseInput(closeHandoffInput, options);
  if (input.archive) return closeKeepingBundle(input.id);
  return write(async (tx) => ({ handoff: await closeHandoffIn(tx, input.id), artifactId: null }));
}
