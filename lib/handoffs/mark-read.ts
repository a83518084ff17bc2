import "server-only";
import { z } from "zod";
import { write } from "../database";
import { parseInput, type DoorInput } from "../validation";
import { asClientSchema } from "../caller";
import { handoffIdSchema } from "./schemas";
import { markReadIn } from "./store";
import type { HandoffView } from "./views";

const markReadInput = z.object({
  id: handoffIdSchema,
  asClient: asClientSchema,
});

export type MarkReadOptions = DoorInput<typeof markReadInput>;

/** Moves one side's cursor to the thread's highest seq. A cursor never moves backward. */
export async function markRead(options: MarkReadOptions): Promise<HandoffView> {
  const input = parseInput(markReadInput, options);
  return write((tx) => markReadIn(tx, input.id, input.asClient));
}
