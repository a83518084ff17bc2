import "server-only";
import { write } from "../database";
import { operationInput, parseInput, type DoorInput } from "../validation";
import { asClientSchema } from "../caller";
import { handoffIdSchema } from "./schemas";
import { markReadIn } from "./store";
import type { HandoffView } from "./views";

const markReadInput = operationInput({
  id: handoffIdSchema,
  asClient: asClientSchema,
}, { target: "id" });

export type MarkReadOptions = DoorInput<typeof markReadInput>;

/** Moves one side's cursor to the thread's highest seq. A cursor never moves backward. */
export async function markRead(options: MarkReadOptions): Promise<HandoffView> {
  const input = parseInput(markReadInput, options);
  return write((tx) => markReadIn(tx, input.id, input.asClient));
}
