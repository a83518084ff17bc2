import { z } from "zod";
import { Invalid } from "./errors";

/** Field path as people write it: `current_story.progress_percent`, `refs.threads[0].seq`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, "");
}

/** Every problem of a zod error, keyed by field path (the root is `(document)`). */
export function fieldErrorsOf(error: z.ZodError): Record<string, string[]> {
  const fieldErrors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = formatPath(issue.path) || "(document)";
    (fieldErrors[key] ??= []).push(issue.message);
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
