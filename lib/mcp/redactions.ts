import { z } from "zod";
import type { Redaction } from "../secrets";

/** What a write had redacted: kinds and positions, never the values. */
export const mcpRedactionsSchema = z
  .array(
    z.object({
      field: z.string().describe("The argument the secret was in: content, title, document or text"),
      kind: z.string().describe("What it looked like: github, aws, privatekey, jwt, env-assignment, high-entropy, …"),
      line: z.number().int(),
      column: z.number().int(),
      offset: z.number().int(),
    }),
  )
  .describe("Secrets replaced by [redacted: <kind>] before anything was stored; empty when there were none");

export function toMcpRedactions(redactions: Redaction[]): z.output<typeof mcpRedactionsSchema> {
  return redactions.map(({ field, kind, line, column, offset }) => ({ field, kind, line, column, offset }));
}

/** The line a model reads first when something it wrote was redacted, so it can tell the user. */
export function redactionLead(redactions: Redaction[]): string | null {
  if (redactions.length === 0) return null;
  const where = redactions.map((r) => `${r.kind} in ${r.field} at line ${r.line}, column ${r.column}`).join("; ");
  return `Baton redacted ${redactions.length} secret${redactions.length === 1 ? "" : "s"} before storing (${where}). Tell the user; the stored text says [redacted: <kind>] there.`;
}
