import { CST, isNode, isScalar, Lexer, LineCounter, parseDocument, visit, YAMLParseError, type Tags } from "yaml";
import { z } from "zod";
import { Invalid } from "../errors";
import { contentSchema, MAX_CONTENT_BYTES } from "../handoffs/schemas";
import { duplicateKeyRefusal } from "../json-keys";
import { jsonTooDeep, tooDeepMessage, valueTooDeep, yamlTooDeep, type TooDeep } from "../nesting";
import { describeFieldErrors, emptyRefusal, parseInput, showsSomething } from "../validation";
import type { ThreadDraft } from "./types";

/** Largest document Baton reads: ten entries' worth; anything bigger is not a handoff. */
export const MAX_IMPORT_BYTES = 1024 * 1024;
/** Most items a list may hold (each becomes an entry or a line of one). */
export const MAX_LIST_ITEMS = 200;
/**
 * Most nodes a YAML document may have (each key, value and list item counts): a real handoff.yaml
 * has a few dozen, a few hundred with a long `files` list. The parser builds several objects a
 * node, and 1 MiB of `- a` lines or `[1,1,…]` (520,000 nodes) took 2–3 s and 400–1,100 MB.
 */
export const MAX_YAML_NODES = 10_000;

type IssueInput = { input?: unknown };

/** "is required" when the field is missing, "must be <what>" when it has the wrong type. */
export function requiredAs(what: string) {
  return { error: (issue: IssueInput) => (issue.input === undefined ? "is required" : `must be ${what}`) };
}

export const fitsInEntry = (text: string) => Buffer.byteLength(text, "utf8") <= MAX_CONTENT_BYTES;
const ENTRY_LIMIT_MESSAGE = `must be at most 64 KiB (${MAX_CONTENT_BYTES} bytes of UTF-8)`;

/** A string that will become (part of) an entry: present, not blank, at most 64 KiB. */
export function entryText() {
  return z
    .string(requiredAs("a string"))
    .refine(showsSomething, { error: emptyRefusal("must not be empty") })
    .refine(fitsInEntry, { error: ENTRY_LIMIT_MESSAGE });
}

/** A string that may be empty but still must fit in an entry. */
export function optionalText() {
  return z.string(requiredAs("a string")).refine(fitsInEntry, { error: ENTRY_LIMIT_MESSAGE });
}

/** A list of strings, each fitting in an entry. */
export function textList(itemWhat = "a string") {
  return z
    .array(z.string(requiredAs(itemWhat)).refine(fitsInEntry, { error: ENTRY_LIMIT_MESSAGE }), requiredAs("a list of strings"))
    .max(MAX_LIST_ITEMS, { error: `must have at most ${MAX_LIST_ITEMS} items` });
}

/** An ISO 8601 date-time (`2026-01-17T10:30:00Z`, with or without zone or fraction). */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

export function isoDateTime() {
  return z
    .string(requiredAs("an ISO 8601 date-time"))
    .regex(ISO_DATE_TIME, { error: "must be an ISO 8601 date-time, e.g. 2026-01-17T10:30:00Z" })
    .refine((text) => !Number.isNaN(Date.parse(text.replace(" ", "T"))), { error: "is not a real date-time" });
}

function refuseHuge(text: string): void {
  if (Buffer.byteLength(text, "utf8") > MAX_IMPORT_BYTES) {
    throw new Invalid("the document is larger than 1 MiB", { "(document)": ["must be at most 1 MiB"] });
  }
  if (text.trim() === "") throw new Invalid("the document is empty", { "(document)": ["is empty"] });
}

function tooDeep(at?: TooDeep | null): Invalid {
  const message = tooDeepMessage("the document", at);
  return new Invalid(message, { "(document)": [message] });
}

/** The lexer's tokens that make a node: a scalar, an alias, a flow collection, or an item or value that may be empty (`-`, `?`, `:`). */
const NODE_TOKENS = new Set<CST.TokenType | null>([
  "scalar",
  "single-quoted-scalar",
  "double-quoted-scalar",
  "block-scalar-header",
  "alias",
  "flow-map-start",
  "flow-seq-start",
  "seq-item-ind",
  "explicit-key-ind",
  "map-value-ind",
]);

/**
 * Refuses YAML text of more than MAX_YAML_NODES nodes, counted on the yaml library's lexer, which
 * yields one token at a time and builds nothing: it stops at the limit, and reads 1 MiB of long
 * strings in a few milliseconds.
 */
export function refuseManyYamlNodes(text: string): void {
  let nodes = 0;
  for (const token of new Lexer().lex(text)) {
    if (NODE_TOKENS.has(CST.tokenType(token)) && ++nodes > MAX_YAML_NODES) {
      const limit = `at most ${MAX_YAML_NODES.toLocaleString("en")} YAML nodes (keys, values and list items)`;
      throw new Invalid(`the document has more than ${MAX_YAML_NODES.toLocaleString("en")} YAML nodes (keys, values and list items); a handoff.yaml has a few hundred`, {
        "(document)": [`must have ${limit}`],
      });
    }
  }
}

/**
 * What no document is, refused from the text alone: more than 1 MiB, empty, nested past 64
 * levels, or YAML of more than MAX_YAML_NODES nodes. Every parse starts here; a format the caller
 * chose is checked so before the secrets pass walks its value (whose errors then quote no secret).
 */
export function refuseUnreadable(text: string, syntax: "json" | "yaml"): void {
  refuseHuge(text);
  // The parsers recurse per level: an estimate refuses runaway nesting before they start.
  const deep = syntax === "json" ? jsonTooDeep(text) : yamlTooDeep(text);
  if (deep) throw tooDeep(deep);
  if (syntax === "yaml") refuseManyYamlNodes(text);
}

/** The path of the first number in `value` that is not finite, or null (the walk is as deep as the document, at most 64 levels). */
function infiniteNumberAt(value: unknown, path: string): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : path || "(document)";
  if (typeof value !== "object" || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const found = infiniteNumberAt(child, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return null;
}

/**
 * JSON text → value, or an Invalid saying where the JSON breaks or nests too deep. A number past
 * a double's range (1e400) reads as Infinity, which no JSON can hold: refused by its path, since
 * a bundle's canonical bytes (and any document written back) could not be made of it.
 */
export function parseJsonText(text: string): unknown {
  refuseUnreadable(text, "json");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Invalid(`invalid JSON: ${reason}`, { "(document)": [`invalid JSON: ${reason}`] });
  }
  const duplicate = duplicateKeyRefusal(text, "the document");
  if (duplicate) throw new Invalid(duplicate, { "(document)": [duplicate] });
  const infinite = infiniteNumberAt(value, "");
  if (infinite) {
    const message = "is a number too large for JSON to hold (it reads as infinity)";
    throw new Invalid(`${infinite}: ${message}`, { [infinite]: [message] });
  }
  return value;
}

/**
 * The YAML 1.1 schema's tags but its timestamp: a document starting with `%YAML 1.1` read
 * `timestamp: 2026-01-17T10:30:00Z` as a date, and the import refused it as "must be an ISO 8601
 * date-time". It stays the text written, as YAML 1.2 (the default, which has no such tag) reads it.
 */
const withoutTimestamps = (tags: Tags): Tags => tags.filter((tag) => (typeof tag === "string" ? tag !== "timestamp" : tag.tag !== "tag:yaml.org,2002:timestamp"));

/**
 * YAML text → plain data, or the parser's error. One document: a custom tag (`!custom`) resolves
 * to nothing and its value stays plain text, aliases are capped so a "billion laughs" cannot blow
 * up, and warnings are not printed (they were TAG_RESOLVE_FAILED blocks on stderr). A key written
 * twice in one mapping is refused, found in one pass: the parser's own check (uniqueKeys) compares
 * each key with every earlier one, and a 1 MiB document of 80,000 keys held the server 87 s.
 * `exactIntegers` where the document is written again (an export, a checkpoint's file): an
 * integer past 2^53 stays as written (12345678901234567890 came back as 12345678901234567000).
 */
export function yamlValueOf(text: string, { exactIntegers = false } = {}): unknown {
  const lines = new LineCounter();
  const document = parseDocument(text, {
    uniqueKeys: false,
    prettyErrors: true,
    logLevel: "error",
    lineCounter: lines,
    intAsBigInt: exactIntegers,
    customTags: withoutTimestamps,
  });
  if (document.errors.length > 0) throw document.errors[0];
  let duplicate: { key: unknown; offset: number } | null = null;
  visit(document, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        // Equal as the parser's own check has it: scalars by value, anything else by identity.
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          duplicate = { key, offset: isNode(pair.key) ? (pair.key.range?.[0] ?? 0) : 0 };
          return visit.BREAK;
        }
        seen.add(key);
      }
    },
  });
  if (duplicate) {
    const { key, offset } = duplicate;
    const { line, col } = lines.linePos(offset);
    throw new Error(`Map keys must be unique: ${JSON.stringify(String(key)).slice(0, 80)} again at line ${line}, column ${col}`);
  }
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  return exactIntegers ? withSafeIntegersAsNumbers(value) : value;
}

/**
 * `value` with each BigInt a number can hold made a number again, in place (own keys only, so
 * `__proto__` stays a key): read with `intAsBigInt`, only integers past 2^53 stay BigInts, which
 * the YAML writer writes digit for digit.
 */
function withSafeIntegersAsNumbers(value: unknown): unknown {
  if (typeof value === "bigint") return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  if (Array.isArray(value)) {
    value.forEach((item, index) => (value[index] = withSafeIntegersAsNumbers(item)));
  } else if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = withSafeIntegersAsNumbers(record[key]);
  }
  return value;
}

/** YAML text → value, or an Invalid naming the line where the YAML breaks or nests too deep. */
export function parseYamlText(text: string): unknown {
  refuseUnreadable(text, "yaml");
  let value: unknown;
  try {
    value = yamlValueOf(text);
  } catch (error) {
    const reason = error instanceof YAMLParseError || error instanceof Error ? error.message.split("\n")[0] : String(error);
    if (/call stack/i.test(reason)) throw tooDeep();
    throw new Invalid(`invalid YAML: ${reason}`, { "(document)": [`invalid YAML: ${reason}`] });
  }
  if (valueTooDeep(value)) throw tooDeep();
  return value;
}

/** Refuses a draft with an entry past 64 KiB, naming the document field it comes from. */
export function refuseLargeEntries(draft: ThreadDraft): void {
  const tooLarge: Record<string, string[]> = {};
  for (const entry of draft.entries) {
    if (!contentSchema.safeParse(entry.content).success) (tooLarge[entry.field] ??= []).push("makes an entry larger than 64 KiB; shorten it");
  }
  if (Object.keys(tooLarge).length > 0) throw new Invalid(describeFieldErrors(tooLarge), tooLarge);
}

/** Validates a parsed document: a non-object gets one clear root error, fields get their paths. */
export function validateDocument<Schema extends z.ZodType>(schema: Schema, value: unknown, what: string): z.output<Schema> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Invalid(`${what} must be an object`, { "(document)": [`must be ${what} object (key: value pairs)`] });
  }
  return parseInput(schema, value);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * First line of `text` that shows something (lib/validation's showsSomething: a line of zero-width
 * characters alone would be a title no one can read, and is refused as one), at most `max`
 * characters (UTF-16 units), for titles and one-line fields, cut between characters: cut inside a
 * surrogate pair (an emoji at the 200th place of a goal), the title held half of it, and a valid
 * document was refused as invalid Unicode.
 */
export function firstLine(text: string, max = 200): string {
  const lines = text.split("\n").map((line) => line.trim());
  const whole = lines.find(showsSomething) ?? lines.find((line) => line !== "") ?? "";
  // A line of heading marks alone ("#") stays as it is: a title is never empty.
  const line = whole.replace(/^#+\s*/, "").trim() || whole;
  return line.length > max ? `${startOf(line, max - 1)}…` : line;
}

/**
 * The longest start of `text` costing at most `max`, cut between characters (grapheme clusters),
 * so no emoji, surrogate pair or letter with its combining marks is ever split. The cost is
 * UTF-16 units unless `costOf` measures a piece otherwise (summaries: its bytes in JSON).
 */
export function startOf(text: string, max: number, costOf: (piece: string) => number = (piece) => piece.length): string {
  if (costOf(text) <= max) return text;
  let used = 0;
  let end = 0;
  for (const { index, segment } of graphemes.segment(text)) {
    used += costOf(segment);
    if (used > max) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}
