import { z } from "zod";
import { blankToUndefined, emptyRefusal, showsSomething, textFieldError } from "../validation";

/** nanoid's URL-safe alphabet; a handoff id is `hof_` + 21 of these. */
export const NANOID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
export const HANDOFF_ID_PATTERN = /^hof_[A-Za-z0-9_-]{21}$/;
/** HANDOFF_ID_PATTERN in words, for every refusal of something that is not a handoff ID. */
export const HANDOFF_ID_SHAPE = "hof_ followed by 21 letters, digits, _ or -";

export const CLIENT_SIDES = ["chat", "code"] as const;
export const ENTRY_TYPES = ["context", "task", "progress", "question", "decision", "done"] as const;
/** What a reply to a question is, unless its writer says otherwise: the asked side decided. */
export const ANSWERING_TYPE = "decision" satisfies (typeof ENTRY_TYPES)[number];
export const HANDOFF_STATUSES = ["active", "completed"] as const;
/** The documents a thread can be imported from (lib/formats reads and writes them). */
export const SOURCE_FORMATS = ["bundle", "handoff_json", "handoff_yaml"] as const;
/** Where a thread came from, as the history filters it: started in Baton, or imported. */
export const SOURCE_FILTERS = ["native", ...SOURCE_FORMATS] as const;

export const MAX_TITLE_LENGTH = 200;
export const MAX_CONTENT_BYTES = 64 * 1024;
export const MAX_PROJECT_LENGTH = 40;
export const PROJECT_TAG_PATTERN = new RegExp(`^[a-z0-9][a-z0-9_-]{0,${MAX_PROJECT_LENGTH - 1}}$`);

export type ClientSide = (typeof CLIENT_SIDES)[number];
export type EntryType = (typeof ENTRY_TYPES)[number];
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

export const handoffIdSchema = z
  .string({ error: textFieldError("id") })
  .regex(HANDOFF_ID_PATTERN, {
    error: (issue) =>
      `"${String(issue.input).slice(0, 60)}" is not a handoff ID; IDs look like ${HANDOFF_ID_SHAPE}`,
  });

export const clientSideSchema = z.enum(CLIENT_SIDES, { error: 'as_client must be "chat" or "code"' });

export const entryTypeSchema = z.enum(ENTRY_TYPES, {
  error: `type must be one of ${ENTRY_TYPES.join(", ")}`,
});

export const handoffStatusSchema = z.enum(HANDOFF_STATUSES, { error: 'status must be "active" or "completed"' });

export const titleSchema = z
  .string({ error: textFieldError("title") })
  .trim()
  .refine(showsSomething, { error: emptyRefusal("title must not be empty") })
  .max(MAX_TITLE_LENGTH, { error: `title must be at most ${MAX_TITLE_LENGTH} characters` });

export const contentSchema = z
  .string({ error: textFieldError("content") })
  .refine(showsSomething, { error: emptyRefusal("content must not be empty") })
  .refine((text) => Buffer.byteLength(text, "utf8") <= MAX_CONTENT_BYTES, {
    error: `content must be at most 64 KiB (${MAX_CONTENT_BYTES} bytes of UTF-8)`,
  });

export const projectTagSchema = z
  .string({ error: textFieldError("project") })
  .regex(PROJECT_TAG_PATTERN, {
    error: `project must be 1–${MAX_PROJECT_LENGTH} characters: lowercase letters, digits, _ or -, starting with a letter or digit`,
  });

/** An optional project: blank or null means none. */
export const optionalProjectSchema = z.preprocess(blankToUndefined, projectTagSchema.optional());
