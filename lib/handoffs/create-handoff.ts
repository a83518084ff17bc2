import "server-only";
import { z } from "zod";
import { write } from "../sqlite";
import { parseInput, type DoorInput } from "../validation";
import { clientSideSchema, contentSchema, optionalProjectSchema, titleSchema } from "./schemas";
import { createHandoffIn } from "./store";
import type { EntryView, HandoffView } from "./views";

const createHandoffInput = z.object({
  title: titleSchema,
  content: contentSchema,
  project: optionalProjectSchema,
  asClient: clientSideSchema.default("chat"),
});

export type CreateHandoffOptions = DoorInput<typeof createHandoffInput>;
export type CreatedHandoff = { handoff: HandoffView; entries: EntryView[] };

/** Starts a thread: `content` becomes its first `context` entry, seen by its creator. */
export async function createHandoff(options: CreateHandoffOptions): Promise<CreatedHandoff> {
  const input = parseInput(createHandoffInput, options);
  return write((tx) =>
    createHandoffIn(tx, {
      title: input.title,
      project: input.project ?? null,
      entries: [{ fromClient: input.asClient, type: "context", content: input.content }],
    }),
  );
}
