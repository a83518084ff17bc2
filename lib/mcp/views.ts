import { z } from "zod";
import { CLIENT_SIDES, ENTRY_TYPES, HANDOFF_STATUSES } from "../handoffs/schemas";
import type { EntryView, HandoffView, OmittedRange } from "../handoffs";

/**
 * What MCP clients see: the seed's snake_case field names (`chat_last_seen`, `from_client` …).
 * The zod shapes double as each tool's `outputSchema`, so a client can check what it gets.
 */
export const mcpHandoffSchema = z.object({
  id: z.string().describe("Handoff ID: hof_ followed by 21 characters; the user pastes it into the other client"),
  title: z.string(),
  project: z.string().nullable().describe("Project tag, informational only"),
  chat_last_seen: z.number().int().describe("Highest entry seq the chat side has seen"),
  code_last_seen: z.number().int().describe("Highest entry seq the code side has seen"),
  status: z.enum(HANDOFF_STATUSES).describe("active, or completed once closed (entries wiped)"),
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable(),
});

/** An entry of the handoff its answer is about: the handoff's ID is said once, in `handoff`, not on every entry. */
export const mcpEntrySchema = z.object({
  number: z.number().int().describe("Its number in this thread (#1 is the first): quote this one to people and in `answers`"),
  seq: z.number().int().describe("Global sequence number for the cursors and after_seq/before_seq; not shown to people"),
  answers: z.number().int().nullable().describe("The number of the question in this thread that this entry answers, or null"),
  from_client: z.enum(CLIENT_SIDES).describe("Who wrote it: chat (decisions) or code (implementation)"),
  type: z.enum(ENTRY_TYPES),
  content: z.string(),
  created_at: z.string(),
});

export const mcpOmittedRangeSchema = z
  .object({
    first_number: z.number().int(),
    last_number: z.number().int(),
    first_seq: z.number().int(),
    last_seq: z.number().int(),
    count: z.number().int().describe("How many entries of the thread lie in this range"),
  })
  .nullable();

export type McpHandoff = z.infer<typeof mcpHandoffSchema>;
export type McpEntry = z.infer<typeof mcpEntrySchema>;

export function toMcpHandoff(view: HandoffView): McpHandoff {
  return {
    id: view.id,
    title: view.title,
    project: view.project,
    chat_last_seen: view.chatLastSeen,
    code_last_seen: view.codeLastSeen,
    status: view.status,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
    closed_at: view.closedAt,
  };
}

export function toMcpEntry(view: EntryView): McpEntry {
  return {
    number: view.number,
    seq: view.seq,
    answers: view.answers,
    from_client: view.fromClient,
    type: view.type,
    content: view.content,
    created_at: view.createdAt,
  };
}

export function toMcpOmittedRange(range: OmittedRange | null): z.infer<typeof mcpOmittedRangeSchema> {
  return range && { first_number: range.firstNumber, last_number: range.lastNumber, first_seq: range.firstSeq, last_seq: range.lastSeq, count: range.count };
}
