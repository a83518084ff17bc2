/**
 * Input validation shared by every domain function and door: parseInput (zod → a typed Invalid
 * naming every bad field), the door-input type, whole-number and blank rules for optional
 * values. Client-safe (zod only): URL filters and forms use the same rules.
 */
import { z } from "zod";
import { Invalid } from "./errors";

/** Field path as people write it: `current_story.progress_percent`, `refs.threads[0].seq`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, "");
}

/**
 * Control characters shown as `\u0000` escapes. Messages quote what callers sent; a raw NUL or
 * terminal escape in one would corrupt a log line or drive the terminal that prints it.
 */
export function visibleControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Every problem of a zod error, keyed by field path (the root is `(document)`). */
export function fieldErrorsOf(error: z.ZodError): Record<string, string[]> {
  const fieldErrors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = formatPath(issue.path) || "(document)";
    (fieldErrors[key] ??= []).push(visibleControls(issue.message));
  }
  return fieldErrors;
}

/** `field: message; other: message`: one line naming every bad field. */
export function describeFieldErrors(fieldErrors: Record<string, string[]>): string {
  return Object.entries(fieldErrors)
    .flatMap(([field, messages]) => messages.map((message) => `${field}: ${message}`))
    .join("; ");
}

/** Validates `input` or throws `Invalid` listing every bad field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fieldErrors = fieldErrorsOf(result.error);
  throw new Invalid(describeFieldErrors(fieldErrors), fieldErrors);
}

/**
 * The options a door may pass to a domain function: the schema's input with string-literal
 * unions widened to `string`, because doors hand over what people and models typed and the
 * domain function validates it (an unknown `type` is refused there, with its message).
 */
export type DoorInput<Schema extends z.ZodType> = {
  [Key in keyof z.input<Schema>]: z.input<Schema>[Key] extends string | undefined
    ? string | Extract<z.input<Schema>[Key], undefined>
    : z.input<Schema>[Key];
};

/**
 * Absent, null or only whitespace: what a form's empty field, a JSON null and an unset CLI flag
 * all mean for an optional value. Every optional field's preprocess uses this one rule.
 */
export function blankToUndefined(value: unknown): unknown {
  return value === null || (typeof value === "string" && value.trim() === "") ? undefined : value;
}

/** Highest page number any list answers: far past a real page, well inside safe integers and SQL offsets. */
export const MAX_PAGE = 1_000_000;

/**
 * A whole number from a URL or a caller, `min` to `max`: numbers as they are, strings only as
 * plain decimal digits (`1e308`, `0x10`, `NaN`, `-1` and `1.5` are refused, not coerced), blank
 * as absent. One rule for page numbers and page sizes at every door.
 */
export function wholeNumberParam(name: string, min: number, max: number) {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    (value) => {
      if (value === "" || value === null) return undefined;
      return typeof value === "string" && /^\s*\d{1,16}\s*$/.test(value) ? Number(value) : value;
    },
    z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }).optional(),
  );
}
