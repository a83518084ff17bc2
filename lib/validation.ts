/**
 * Input validation shared by every domain function and door: parseInput (zod → a typed Invalid
 * naming every bad field), the door-input type, whole-number and blank rules for optional
 * values. Client-safe (zod only): URL filters and forms use the same rules.
 */
import { z } from "zod";
import { Invalid } from "./errors";
import { BIDI_CONTROLS } from "./one-line";

/** Field path as people write it: `current_story.progress_percent`, `refs.threads[0].seq`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, "");
}

/**
 * Control characters and bidirectional formatting characters shown as `\u0000` escapes. Messages
 * quote what callers sent; a raw NUL or terminal escape in one would corrupt a log line or drive
 * the terminal that prints it, and a right-to-left override (U+202E) would reorder the text
 * around it ("…wants to act as chat" read backwards on a consent page).
 */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS, escapeOf);
}

const CONTROLS = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_CONTROLS}]`, "g");
/** Characters that print nothing: soft hyphen, Mongolian vowel separator, zero-width space, word joiner and invisible operators, byte order mark. */
const INVISIBLE_MARKS = "\\u00ad\\u180e\\u200b\\u2060-\\u2064\\ufeff";
/**
 * The zero-width non-joiner and joiner print nothing either, but Persian and Indic words and emoji
 * sequences (a ZWJ between two emoji) need them; beside an ASCII character they only hide.
 */
const JOINERS_BESIDE_ASCII = "(?<=[\\u0000-\\u007f])[\\u200c\\u200d]|[\\u200c\\u200d](?=[\\u0000-\\u007f])";
const SHOWN_AS_ESCAPES = new RegExp(`[${BIDI_CONTROLS}${INVISIBLE_MARKS}]|${JOINERS_BESIDE_ASCII}`, "g");
const escapeOf = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * The bidirectional formatting characters of visibleControls, and the characters that print
 * nothing, shown as escapes: how the desk shows titles, names and entries that anyone with a token
 * wrote. A right-to-left override in a title ("Invoice \u202efdp.exe") would otherwise read
 * "Invoice exe.pdf"; a zero-width space made "De\u200bploy to prod" a twin of "Deploy to prod",
 * and a title of zero-width spaces alone an empty row whose link had no width to click. The desk
 * shows the spoofing as it is. Line breaks and tabs stay (an entry's text keeps its lines).
 */
export function visibleBidiControls(text: string): string {
  return text.replace(SHOWN_AS_ESCAPES, escapeOf);
}

/**
 * Whether `text` has a character that shows: not only white space and characters Unicode says
 * print nothing (zero-width spaces and joiners, the word joiner, bidirectional controls, a soft
 * hyphen, variation selectors, the Hangul filler). What must not be empty (a title, an entry, a
 * shift document, a name) must not be that either: "\u200b" was stored as a title no one could
 * read, shown only as its escape.
 */
export function showsSomething(text: string): boolean {
  return SHOWN_CHARACTER.test(text);
}

const SHOWN_CHARACTER = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u;

/**
 * The refusal of a text that does not show anything (with showsSomething): `message`, and why
 * when what came was not blank.
 */
export function emptyRefusal(message: string): (issue: { input?: unknown }) => string {
  return (issue) => (typeof issue.input === "string" && issue.input.trim() !== "" ? `${message} (characters that print nothing, such as U+200B, do not count)` : message);
}

/** A field name a caller sent, as messages quote it: escaped, and cut at 64 characters. */
export function quotedField(field: string): string {
  return visibleControls(field.length > 64 ? `${field.slice(0, 64)}…` : field);
}

/** Unknown fields named one by one in a refusal, at the most; the rest are counted. */
const MAX_NAMED_FIELDS = 10;

/**
 * Every problem of a zod error, keyed by field path (the root is `(document)`). A field the
 * object does not take is keyed by its own path (the first MAX_NAMED_FIELDS of them), so the
 * caller sees which one to drop or rename.
 */
export function fieldErrorsOf(error: z.ZodError): Record<string, string[]> {
  // Collected in a Map: a field the caller named `__proto__` is keyed like any other
  // (Object.fromEntries defines it as the object's own), and the object stays a plain one.
  const fieldErrors = new Map<string, string[]>();
  for (const issue of error.issues) {
    const paths = issue.code === "unrecognized_keys" ? issue.keys.slice(0, MAX_NAMED_FIELDS).map((key) => [...issue.path, key]) : [issue.path];
    for (const path of paths) {
      const key = quotedField(formatPath(path)) || "(document)";
      fieldErrors.set(key, [...(fieldErrors.get(key) ?? []), visibleControls(issue.message)]);
    }
  }
  return Object.fromEntries(fieldErrors);
}

/** A field name as spelled without case, `_` or `-`: `as_client` and `asClient` are one. */
const spellingOf = (field: string) => field.toLowerCase().replace(/[_-]/g, "");

/**
 * An operation's input: an object of `shape` that refuses a field it does not take, naming the
 * fields it does and the one meant when only the spelling differs (`as_client`, MCP's name, where
 * REST takes `asClient`). An unknown field used to be dropped: a side sent as `as_client` was
 * lost and the entry stored as the caller's default side.
 */
export function operationInput<Shape extends z.ZodRawShape>(shape: Shape, options: { notAnObject?: string; target?: keyof Shape & string } = {}) {
  const fields = Object.keys(shape);
  // The field naming what the operation acts on (a thread's id) comes from a REST path or a CLI
  // argument, never a body (a body's id is refused): listing it among the fields a body takes
  // told REST callers to send what they may not.
  const listed = fields.filter((field) => field !== options.target);
  const fieldBySpelling = new Map(fields.map((field) => [spellingOf(field), field]));
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== "unrecognized_keys") return options.notAnObject;
      // Self-contained: the MCP SDK passes on the message without the issue's path.
      const named = issue.keys.slice(0, MAX_NAMED_FIELDS);
      const more = issue.keys.length - named.length;
      const meant = named.flatMap((key) => fieldBySpelling.get(spellingOf(key)) ?? []);
      const unknown = `${named.map(quotedField).join(", ")}${more > 0 ? ` and ${more} more` : ""} ${issue.keys.length > 1 ? "are not fields" : "is not a field"} here`;
      return `${unknown}${meant.length > 0 ? ` (did you mean ${meant.join(", ")}?)` : ""}; this takes ${listed.join(", ")}`;
    },
  });
}

/**
 * One problem as a person reads it: `field: message`, or, when the message already starts with
 * its field's name ("url must be …"), the message alone with that name spelt as the field's path
 * (`types[0] must be among …`). Joined blindly, such a message read "url: url must be …". A
 * message that names its field in another spelling keeps both: it names the field as a door
 * takes it (REST's `?after_seq=`, MCP's `as_client`), the path as the domain does (`afterSeq`),
 * and the caller may have sent either. The one place a field and its message are joined (REST,
 * CLI, forms' summaries).
 */
export function fieldProblem(field: string, message: string): string {
  const name = /([^.[\]]+)(?:\[\d+\])*$/.exec(field)?.[1];
  const first = /^[\w-]+/.exec(message)?.[0];
  if (name !== undefined && first === name) return `${field}${message.slice(first.length)}`;
  return `${field}: ${message}`;
}

/** `field: message; other must …`: one line naming every bad field. */
export function describeFieldErrors(fieldErrors: Record<string, string[]>): string {
  return Object.entries(fieldErrors)
    .flatMap(([field, messages]) => messages.map((message) => fieldProblem(field, message)))
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
 * A text field's type error, by what was sent: `title is required` when it is absent, `title must
 * be text` when it is something else (a number, a list, null). Both used to read "is required",
 * so a caller who sent `"content": ["x"]` was told to send what it had sent.
 */
export const textFieldError = (name: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be text`);

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
/** A query parameter given more than once, as a door hands it over (a JSON body cannot make one). */
export class GivenMoreThanOnce {
  constructor(readonly values: readonly string[]) {}
}

/** A query parameter as a door hands it to an operation: its text, GivenMoreThanOnce, or undefined when absent. */
export function queryValue(params: URLSearchParams, name: string): string | GivenMoreThanOnce | undefined {
  const values = params.getAll(name);
  return values.length > 1 ? new GivenMoreThanOnce(values) : values[0];
}

/**
 * A parameter given more than once is refused by name, since a proxy, a cache or a log may read
 * the first where Baton would read another (`?status=active&status=completed` answered the
 * completed ones); any other value is passed on as it is.
 */
export function givenOnce(name: string, value: unknown, context: { addIssue: (issue: { code: "custom"; message: string; input: unknown }) => void }): unknown {
  if (!(value instanceof GivenMoreThanOnce)) return value;
  context.addIssue({ code: "custom", message: `${name} is given ${value.values.length} times; give it once`, input: value.values });
  return z.NEVER;
}

export function wholeNumberParam(name: string, min: number, max: number) {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    (given, context) => {
      const value = givenOnce(name, given, context);
      if (value === "" || value === null) return undefined;
      return typeof value === "string" && /^\s*\d{1,16}\s*$/.test(value) ? Number(value) : value;
    },
    // abort: a 16-digit number past 2^53 fails int and max alike, and the message is said once.
    z.number({ error: message }).int({ error: message, abort: true }).min(min, { error: message }).max(max, { error: message }).optional(),
  );
}
