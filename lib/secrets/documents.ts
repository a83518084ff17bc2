import "server-only";
import { isScalar, parseDocument, visit } from "yaml";
import { findSecrets } from "./scan";

/** A value with its secrets replaced; `key` gives `.env`-style context (`client_secret` → its value). */
function redactValue(value: string, key: string | null): string {
  const prefix = key === null ? "" : `${key}=`;
  const scanned = prefix + value;
  let out = "";
  let from = prefix.length;
  for (const hit of findSecrets(scanned)) {
    if (hit.end <= prefix.length) continue;
    out += scanned.slice(from, Math.max(from, hit.start)) + `[redacted: ${hit.kind}]`;
    from = hit.end;
  }
  return out + scanned.slice(from);
}

function redactJsonValue(value: unknown, key: string | null): unknown {
  if (typeof value === "string") return redactValue(value, key);
  if (Array.isArray(value)) return value.map((item) => redactJsonValue(item, key));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [redactValue(name, null), redactJsonValue(item, name)]));
  }
  return value;
}

/** The marker replacing text inside a comment or anything the structured pass left. */
function redactLeftovers(text: string): string {
  let out = "";
  let from = 0;
  for (const hit of findSecrets(text)) {
    out += text.slice(from, hit.start) + `[redacted: ${hit.kind}]`;
    from = hit.end;
  }
  return out + text.slice(from);
}

/**
 * A document with every value decoded, as its redaction re-serializes it, or null when nothing in
 * it is escaped. JSON's `\u005f`, YAML's `\x5f` or a double-quoted line break spell a token that
 * no scan of the raw text sees, yet every reader decodes it: the entries were redacted while the
 * kept document, its export and a bundle's blob held the token in clear. Escapes start with a
 * backslash, so a document without one is its own decoded form and costs no second pass.
 */
export function decodedDocument(text: string, format: "json" | "yaml"): string | null {
  if (!text.includes("\\")) return null;
  try {
    if (format === "json") return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
    const doc = parseDocument(text, { uniqueKeys: false });
    return doc.errors.length > 0 ? null : doc.toString();
  } catch {
    // Not a document (or nested past the parser's stack): the import refuses it; the raw scan stands.
    return null;
  }
}

/**
 * Redacts a JSON or YAML document value by value, then re-serializes it, so the markers are
 * quoted as the syntax needs (a YAML plain scalar may not hold `: `, a JSON string not a bare
 * backslash) and the document still parses to the same fields. A document that does not parse is
 * redacted as text; the import refuses it anyway, and its error then quotes no secret.
 */
export function redactDocument(text: string, format: "json" | "yaml"): string {
  if (format === "json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return redactLeftovers(text);
    }
    return redactLeftovers(`${JSON.stringify(redactJsonValue(parsed, null), null, 2)}\n`);
  }
  // uniqueKeys off: the parser's check compares each key with every earlier one (87 s for a
  // document of 80,000 keys); the import refuses a key written twice once the secrets are out.
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) return redactLeftovers(text);
  visit(doc, {
    Pair(_, pair) {
      const key = isScalar(pair.key) ? String(pair.key.value) : null;
      if (isScalar(pair.value) && typeof pair.value.value === "string") pair.value.value = redactValue(pair.value.value, key);
    },
    Scalar(_, node) {
      if (typeof node.value === "string") node.value = redactValue(node.value, null);
    },
  });
  // Comments are text: what is left (a secret in a comment) is replaced there.
  return redactLeftovers(doc.toString());
}

