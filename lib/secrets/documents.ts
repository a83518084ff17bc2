import "server-only";
import { isPair, isScalar, isSeq, parseDocument, visit, type Scalar } from "yaml";
import { findSecrets, withMarkers, type SecretHit } from "./scan";

/** One string of a document (a value or a key): where it stands in the text, its decoded value and the key giving it `.env`-style context. */
type DocumentString = { start: number; end: number; value: string; context: string | null };

/** The hits that do not overlap an earlier one (the longer first where two start together). */
function disjoint(hits: SecretHit[]): SecretHit[] {
  const kept: SecretHit[] = [];
  for (const hit of [...hits].sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (hit.start >= (kept.at(-1)?.end ?? 0)) kept.push(hit);
  }
  return kept;
}

/**
 * The secrets of a value, read alone and as `key=value` (`client_secret` → its value): each
 * reading finds what the other misses (a value that is itself `DB_PASSWORD=…` is no assignment
 * once a key stands before it).
 */
function valueHits(value: string, context: string | null): SecretHit[] {
  const alone = findSecrets(value);
  if (context === null) return alone;
  const prefix = `${context}=`;
  const inContext = findSecrets(prefix + value)
    .filter((hit) => hit.end > prefix.length)
    .map((hit) => ({ kind: hit.kind, start: Math.max(0, hit.start - prefix.length), end: hit.end - prefix.length }));
  return disjoint([...alone, ...inContext]);
}

/** The marker replacing text inside a comment or anything the structured pass left. */
const redactLeftovers = (text: string) => withMarkers(text, findSecrets(text));

/**
 * The string tokens of a JSON text JSON.parse accepted: each one's range, decoded value and the
 * key whose context it gets (an object's value its key's, a list's items the list's; a key none).
 * Hand-written, linear and allocation-light: the yaml parser (JSON is its flow syntax) took 700 MB
 * and 6 s to place the strings of a 1 MiB document of 200,000, and jsonc-parser's main build is a
 * UMD one bundlers cannot follow (lib/bundle.ts aliases it for esbuild; Next's has no alias).
 */
function jsonStrings(text: string): DocumentString[] {
  const strings: DocumentString[] = [];
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
      strings.push({ start: at, end, value, context: isKey ? null : (container?.key ?? null) });
      if (isKey) container.key = value;
      at = end - 1;
    }
  }
  return strings;
}

/**
 * The key whose `.env`-style context a YAML scalar gets, as jsonStrings gives a JSON string's:
 * a pair's value its key's, a list's items (nested lists too) the list's; a key, an item of a
 * top-level list or a top-level scalar none. The two readings once differed on list items, so
 * the same document redacted differently as JSON and as YAML.
 */
function keyContextOf(node: Scalar, path: readonly unknown[]): string | null {
  let child: unknown = node;
  let at = path.length - 1;
  while (at >= 0 && isSeq(path[at])) child = path[at--];
  const parent = path[at];
  return isPair(parent) && parent.key !== child && isScalar(parent.key) ? String(parent.key.value) : null;
}

/** The string scalars of a YAML document (a pair's value in its key's context), or null when it does not parse or one has no place. */
function yamlStrings(text: string): DocumentString[] | null {
  // uniqueKeys off: the parser's check compares each key with every earlier one (87 s for a
  // document of 80,000 keys); the import refuses a key written twice once the secrets are out.
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) return null;
  const strings: DocumentString[] = [];
  let placed = true;
  visit(doc, {
    Scalar(_, node: Scalar, path) {
      if (typeof node.value !== "string") return;
      if (!node.range || node.range[0] < (strings.at(-1)?.end ?? 0)) {
        placed = false;
        return visit.BREAK;
      }
      const context = keyContextOf(node, path);
      strings.push({ start: node.range[0], end: node.range[1], value: node.value, context });
    },
  });
  return placed ? strings : null;
}

/** The document's strings, or null when it does not parse (JSON) or they cannot be placed (YAML). */
function stringsOf(text: string, format: "json" | "yaml"): DocumentString[] | null {
  if (format === "yaml") return yamlStrings(text);
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  return jsonStrings(text);
}

/**
 * The strings holding a secret as the document's readers see them: decoded (JSON's `\n` and
 * `\u0067`, YAML's `\x67` spell what no scan of the raw text finds) and in their key's context,
 * each with its hits. All strings are scanned at once, joined one to a line (a scan per string
 * took seconds for a document of 200,000), and only those the scan flags are read again alone.
 */
function secretStrings(strings: DocumentString[]): { string: DocumentString; hits: SecretHit[] }[] {
  const starts: number[] = [];
  const lines: string[] = [];
  let length = 0;
  for (const { value, context } of strings) {
    // An assignment's value has 8 characters or more (scan.ts): a shorter one needs no reading in context.
    const line = context === null || value.length < 8 ? value : `${value}\n${context}=${value}`;
    starts.push(length);
    lines.push(line);
    length += line.length + 1;
  }
  const flagged = new Set<number>();
  for (const hit of findSecrets(lines.join("\n"))) {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (starts[middle] <= hit.start) low = middle;
      else high = middle - 1;
    }
    flagged.add(low);
  }
  return [...flagged]
    .sort((a, b) => a - b)
    .map((index) => ({ string: strings[index], hits: valueHits(strings[index].value, strings[index].context) }))
    .filter(({ hits }) => hits.length > 0);
}

/**
 * Where a document's secrets are, as offsets in its text: what a scan of the raw text finds
 * (comments included), and each secret its strings hold once decoded, placed where it stands
 * when the string is written plainly, else at the string's start. The entries made of a string
 * were redacted while the kept document held `"DB_PASSWORD=…"` after a `\n`, or an escaped token.
 */
export function documentSecrets(text: string, format: "json" | "yaml"): SecretHit[] {
  const raw = findSecrets(text);
  const strings = stringsOf(text, format);
  if (strings === null) return raw;
  const inStrings = secretStrings(strings).flatMap(({ string, hits }) => {
    const written = text.slice(string.start, string.end);
    const at = written === JSON.stringify(string.value) ? string.start + 1 : written === string.value ? string.start : null;
    return hits.map((hit) => (at === null ? { kind: hit.kind, start: string.start, end: string.end } : { kind: hit.kind, start: at + hit.start, end: at + hit.end }));
  });
  return disjoint([...raw, ...inStrings]);
}

/**
 * Redacts a JSON or YAML document value by value, each string holding a secret (decoded, in its
 * key's context) replaced where it stands by the JSON of its redacted value (valid as a YAML
 * double-quoted scalar too), every other byte as it was: written again whole (JSON indented by
 * two spaces, YAML folded at 80 columns), a compact document under the import's 1 MiB grew past
 * it and was refused. A YAML document whose strings cannot be placed is written again whole. A
 * document that does not parse is redacted as text; the import refuses it anyway, and its error
 * then quotes no secret.
 */
export function redactDocument(text: string, format: "json" | "yaml"): string {
  const strings = stringsOf(text, format);
  if (strings === null) return format === "yaml" ? redactYamlWhole(text) : redactLeftovers(text);
  const pieces: string[] = [];
  let from = 0;
  for (const { string, hits } of secretStrings(strings)) {
    // A block scalar's range takes its last line break: the next line must stay a line of its own.
    const lineBreak = format === "yaml" && text.slice(string.start, string.end).endsWith("\n") ? "\n" : "";
    pieces.push(text.slice(from, string.start), JSON.stringify(withMarkers(string.value, hits)), lineBreak);
    from = string.end;
  }
  // Comments are text: what is left (a secret in a comment) is replaced there.
  const edited = redactLeftovers(pieces.join("") + text.slice(from));
  return format === "yaml" && parseDocument(edited, { uniqueKeys: false }).errors.length > 0 ? redactYamlWhole(text) : edited;
}

/** A YAML document whose strings could not be replaced in place, written again whole (or redacted as text when it does not parse). */
function redactYamlWhole(text: string): string {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length > 0) return redactLeftovers(text);
  visit(doc, {
    Scalar(_, node, path) {
      const context = keyContextOf(node, path);
      if (typeof node.value === "string") node.value = withMarkers(node.value, valueHits(node.value, context));
    },
  });
  // Comments are text: what is left (a secret in a comment) is replaced there.
  return redactLeftovers(doc.toString());
}
