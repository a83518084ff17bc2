/** A number kept as its JSON text (JSON.rawJSON, Node 22+; TypeScript's lib does not declare it yet). */
type RawJson = { readonly rawJSON: string };
type ReviverContext = { source?: string };
const preciseJson = JSON as JSON & {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
  parse(text: string, reviver: (key: string, value: unknown, context?: ReviverContext) => unknown): unknown;
};

/**
 * Canonical JSON: keys sorted (by UTF-16 code units) at every level, no insignificant
 * whitespace, strings escaped as JSON.stringify does, numbers as it writes them or, kept as
 * written (parseJsonPrecisely), as written. Equal values give equal bytes, which is what makes
 * content-addressed bundle ids reproducible.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  if (preciseJson.isRawJSON(value)) return value.rawJSON;
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON cannot hold ${value}`);
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

/** Significant digits a double always keeps: a number written with more may have lost some. */
const DOUBLE_DIGITS = 15;

/**
 * JSON text → value, each number written with more significant digits than a double keeps held
 * as written (JSON.rawJSON), which JSON.stringify and canonicalJson write back as it was.
 * JSON.parse alone reads a 64-bit id, 12345678901234567890, as 12345678901234567000: an exported
 * handoff.json (its source document, every field), a kept bundle and its artifact id held the
 * changed number. Only where a document is written back: validation reads plain numbers.
 */
export function parseJsonPrecisely(text: string): unknown {
  const keepDigits = (_key: string, value: unknown, context?: ReviverContext): unknown => {
    const source = context?.source;
    if (typeof value !== "number" || source === undefined) return value;
    const digits = source.replace(/[eE].*$/, "").replace(/[-.]/g, "").replace(/^0+/, "");
    return digits.length > DOUBLE_DIGITS ? preciseJson.rawJSON(source) : value;
  };
  return preciseJson.parse(text, keepDigits);
}
