import "server-only";
import { isPair, isScalar, parseDocument, visit, type Scalar } from "yaml";
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
 * A document with every value decoded (JSON indented again, YAML written again), or null when
 * nothing in it is escaped. JSON's `\u005f`, YAML's `\x5f` or a double-quoted line break spell a token that
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

/** The key whose `.env`-style context a YAML string gets: its pair's; none for a key itself or a list's item. */
function yamlContextOf(node: Scalar, path: readonly unknown[]): string | null {
  const parent = path.at(-1);
  return isPair(parent) && parent.key !== node && isScalar(parent.key) ? String(parent.key.value) : null;
}

type Replacement = { start: number; end: number; text: string };

/** `text` with each replacement's range (in order, none overlapping) replaced by its text. */
function replaced(text: string, replacements: Replacement[]): string {
  const pieces: string[] = [];
  let from = 0;
  for (const { start, end, text: replacement } of replacements) {
    pieces.push(text.slice(from, start), replacement);
    from = end;
  }
  return pieces.join("") + text.slice(from);
}

/**
 * The string tokens of a JSON text JSON.parse accepted: each one's range, decoded value and the
 * key whose context it gets (an object's value its key's, a list's items the list's; a key none).
 * Hand-written, linear and allocation-light: the yaml parser (JSON is its flow syntax) took 700 MB
 * and 6 s to place the strings of a 1 MiB document of 200,000, and jsonc-parser's main build is a
 * UMD one bundlers cannot follow (lib/bundle.ts aliases it for esbuild; Next's has no alias).
 */
function* jsonStrings(text: string): Generator<{ start: number; end: number; value: string; context: string | null }> {
  const open: { list: boolean; key: string | null }[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (char === "{") open.push({ list: false, key: null });
    else if (char === "[") open.push({ list: true, key: open.at(-1)?.key ?? null });
    else if (char === "}" || char === "]") open.pop();
    else if (char === '"') {
      let end = at + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      end += 1;
      const value = JSON.parse(text.slice(at, end)) as string;
      let next = end;
      while (next < text.length && " \t\r\n".includes(text[next])) next += 1;
      const container = open.at(-1);
      const isKey = text[next] === ":" && container !== undefined && !container.list;
      yield { start: at, end, value, context: isKey ? null : (container?.key ?? null) };
      if (isKey) container.key = value;
      at = end - 1;
    }
  }
}

/**
 * A JSON document with each string that holds a secret replaced where it stands by the JSON of
 * its redacted value, every other byte as it was. Re-serializing it whole (two spaces an indent)
 * made a compact document under the import's 1 MiB larger than that, and refused.
 */
function redactJsonInPlace(text: string): string {
  const replacements: Replacement[] = [];
  for (const { start, end, value, context } of jsonStrings(text)) {
    const redacted = redactValue(value, context);
    if (redacted !== value) replacements.push({ start, end, text: JSON.stringify(redacted) });
  }
  return replaced(text, replacements);
}

/**
 * A YAML document with each string scalar that holds a secret replaced where it stands, as a
 * double-quoted scalar (JSON's quoting) of its redacted value, every other byte as it was; null
 * when a scalar cannot be placed or the result would not parse. Re-serializing it whole folded
 * long lines at 80 columns, and a document under the import's 1 MiB grew past it, and was refused.
 */
function redactYamlInPlace(text: string): string | null {
  // uniqueKeys off: the parser's check compares each key with every earlier one (87 s for a
  // document of 80,000 keys); the import refuses a key written twice once the secrets are out.
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) return null;
  const replacements: Replacement[] = [];
  let placed = true;
  visit(doc, {
    Scalar(_, node, path) {
      if (typeof node.value !== "string") return;
      const redacted = redactValue(node.value, yamlContextOf(node, path));
      if (redacted === node.value) return;
      if (!node.range || node.range[0] < (replacements.at(-1)?.end ?? 0)) {
        placed = false;
        return visit.BREAK;
      }
      const [start, end] = node.range;
      // A block scalar's range takes its last line break: the next line must stay a line of its own.
      replacements.push({ start, end, text: `${JSON.stringify(redacted)}${text.slice(start, end).endsWith("\n") ? "\n" : ""}` });
    },
  });
  if (!placed) return null;
  const edited = replaced(text, replacements);
  return parseDocument(edited, { uniqueKeys: false }).errors.length > 0 ? null : edited;
}

/**
 * Redacts a JSON or YAML document value by value, in place, so the markers are
 * quoted as the syntax needs (a YAML plain scalar may not hold `: `, a JSON string not a bare
 * backslash), the document still parses to the same fields and keeps its layout. A YAML
 * document whose strings cannot be placed is written again whole. A document that does not parse
 * is redacted as text; the import refuses it anyway, and its error then quotes no secret.
 */
export function redactDocument(text: string, format: "json" | "yaml"): string {
  if (format === "json") {
    try {
      JSON.parse(text);
    } catch {
      return redactLeftovers(text);
    }
    return redactLeftovers(redactJsonInPlace(text));
  }
  const inPlace = redactYamlInPlace(text);
  if (inPlace !== null) return redactLeftovers(inPlace);
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

