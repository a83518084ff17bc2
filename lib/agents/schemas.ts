import { z } from "zod";
import { blankToUndefined, emptyRefusal, showsSomething } from "../validation";

export const AGENT_STATUSES = ["active", "ended"] as const;
export const SHIFT_HANDOFF_REASONS = ["context_limit", "shift_end", "task_boundary"] as const;

export type AgentStatus = (typeof AGENT_STATUSES)[number];
export type ShiftHandoffReason = (typeof SHIFT_HANDOFF_REASONS)[number];

export const PERSONA_SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_PERSONA_SLUG_LENGTH = 64;
export const SESSION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const SESSION_PREFIX_PATTERN = /^[0-9a-f]{8}$/;
/**
 * A tmux target as Baton accepts it: `session`, `session:window` or `session:window.pane`, where
 * the session and a named window are letters, digits, _ or - (not starting with -) and the pane is
 * a number. Nothing else (no `;`, spaces, quotes, `$`, newlines, `../`) ever reaches tmux.
 */
export const TMUX_TARGET_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}(:[A-Za-z0-9_][A-Za-z0-9_-]{0,63}(\.[0-9]{1,4})?)?$/;
export const MAX_NAME_LENGTH = 100;
export const MAX_SHIFT_DOCUMENT_BYTES = 256 * 1024;
/** Predecessors and successors a continuity chain lists on each side of its agent: the nearest. */
export const CHAIN_WINDOW = 20;

const blankToNull = (value: unknown) => (typeof value === "string" && value.trim() === "" ? null : value);

const shown = (input: unknown) => JSON.stringify(String(input).slice(0, 60));

export const personaSlugSchema = z
  .string({ error: "persona is required" })
  .trim()
  .max(MAX_PERSONA_SLUG_LENGTH, { error: `persona must be at most ${MAX_PERSONA_SLUG_LENGTH} characters` })
  .regex(PERSONA_SLUG_PATTERN, {
    error: (issue) =>
      `persona ${shown(issue.input)} is not a slug: use lowercase letters and digits in groups joined by single hyphens (e.g. developer-con-1); no slashes, dots or spaces`,
  });

export const tmuxTargetSchema = z
  .string()
  .trim()
  .regex(TMUX_TARGET_PATTERN, {
    error: (issue) =>
      `tmux target ${shown(issue.input)} is not valid: write session, session:window or session:window.pane (e.g. work:2.0) using letters, digits, _ or -`,
  });

/** An optional tmux target: blank means none. */
export const optionalTmuxTargetSchema = z.preprocess(blankToUndefined, tmuxTargetSchema.optional());
/** A tmux target to set, or null (or blank) to clear it. */
export const nullableTmuxTargetSchema = z.preprocess(blankToNull, tmuxTargetSchema.nullable());

export const sessionIdSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(SESSION_ID_PATTERN, {
    error: (issue) => `session id ${shown(issue.input)} is not a UUID (8-4-4-4-12 hex digits)`,
  });

export const optionalSessionIdSchema = z.preprocess(blankToUndefined, sessionIdSchema.optional());

export const agentNameSchema = z
  .string()
  .trim()
  .refine(showsSomething, { error: emptyRefusal("name must not be empty") })
  .max(MAX_NAME_LENGTH, { error: `name must be at most ${MAX_NAME_LENGTH} characters` })
  .regex(/^[^\u0000-\u001f\u007f]*$/, { error: "name must be one line without control characters" });

export const optionalAgentNameSchema = z.preprocess(blankToUndefined, agentNameSchema.optional());

/**
 * A context use, 0–100: a number, or its decimal digits as text (a form field, a query). Not
 * z.coerce: Number() reads true as 1, null, "" and [] as 0 and "0x10" as 16, so a report of
 * nothing would be stored as a number (and count as a successor's first act).
 */
export const contextPercentSchema = z.preprocess(
  (value) => (typeof value === "string" && /^\s*\d{1,3}\s*$/.test(value) ? Number(value) : value),
  z
    .number({ error: "context percent must be a number from 0 to 100" })
    .int({ error: "context percent must be a whole number" })
    .min(0, { error: "context percent must be between 0 and 100" })
    .max(100, { error: "context percent must be between 0 and 100" }),
);

export const agentStatusSchema = z.enum(AGENT_STATUSES, { error: 'status must be "active" or "ended"' });

export const shiftHandoffReasonSchema = z.enum(SHIFT_HANDOFF_REASONS, {
  error: `reason must be one of ${SHIFT_HANDOFF_REASONS.join(", ")}`,
});

/**
 * Which agent: its integer id, its full session UUID or the first 8 hex digits of the session id
 * (resolved by `resolveAgentId`).
 */
export const agentRefSchema = z.union(
  [
    z.number().int().positive(),
    z
      .string()
      .trim()
      .min(1)
      .max(64),
  ],
  { error: "agent is required: give its id, session UUID or the 8-hex prefix of its session id" },
);

/** An optional context percent: blank or null means not reported. */
export const optionalContextPercentSchema = z.preprocess(blankToUndefined, contextPercentSchema.optional());
