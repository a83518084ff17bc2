import fc from "fast-check";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { MAX_IMPORT_BYTES } from "../lib/formats/schema-helpers";
import { redactDocument } from "../lib/secrets/documents";
import { SECRET_SAMPLES } from "./fixtures/secrets/corpus";
import { apiServerForFile } from "./support/api-server";
import { rowsOf } from "./support/rows";

/**
 * A secret in an imported document is replaced where it stands: the rest of the document keeps
 * its layout. The whole document used to be written again (JSON indented by two spaces, YAML
 * folded at 80 columns), so a compact document under the import's 1 MiB grew past it and was
 * refused ("(document): must be at most 1 MiB") only because it held a secret.
 */
const api = apiServerForFile();
const token = SECRET_SAMPLES.find((sample) => sample.name === "GitHub personal token")!.value;

/** The seed's handoff.json, compact, with a list of `count` short notes and the token in its instruction. */
function compactJson(count: number): string {
  const doc = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text) as Record<string, unknown>;
  doc.handoff_instruction = `Continue in TaskEdit.tsx; CI pushes with ${token}`;
  doc.notes = Array.from({ length: count }, (_, i) => `note number ${i}`);
  return JSON.stringify(doc);
}

/** The seed's handoff.yaml with the token in `now` and one long line of words. */
function longLineYaml(words: number): string {
  return EXAMPLE_DOCUMENTS.handoff_yaml.text.replace('now: "Debugging token expiry in auth.py"', `now: "Push with ${token}"`) + `notes: ${"word ".repeat(words).trim()}\n`;
}

const cases: [string, string][] = [
  ["a compact handoff.json of 50,000 notes", compactJson(50_000)],
  ["a handoff.yaml with a line of 208,000 words", longLineYaml(208_000)],
];

describe("a secret in a document near 1 MiB", () => {
  it.each(cases)("%s: imported, the secret replaced in place", async (_name, text) => {
    const size = Buffer.byteLength(text, "utf8");
    expect(size).toBeGreaterThan(MAX_IMPORT_BYTES * 0.8);
    expect(size).toBeLessThan(MAX_IMPORT_BYTES);
    const answer = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) });
    const imported = await answer.json();
    expect(answer.status, JSON.stringify(imported).slice(0, 300)).toBe(201);
    const [source] = await rowsOf<{ document: string }>("SELECT document FROM handoff_sources WHERE handoff_id = ?", [imported.handoff.id]);
    expect(source.document).not.toContain(token);
    expect(source.document).toBe(text.replace(token, "[redacted: github]"));
  }, 60_000);
});

/** The old redaction, value by value over the parsed document: what the in-place one must equal. */
function redactedValueByValue(value: unknown, key: string | null, redact: (text: string, key: string | null) => string): unknown {
  if (typeof value === "string") return redact(value, key);
  if (Array.isArray(value)) return value.map((item) => redactedValueByValue(item, key, redact));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [redact(name, null), redactedValueByValue(item, name, redact)]));
  }
  return value;
}

describe("redaction in place (property)", () => {
  const piece = fc.oneof(fc.string({ maxLength: 12 }), fc.constant(token), fc.constant(`see ${token} here`), fc.constant('quote " back \\ slash'));
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, piece, fc.integer(), fc.boolean(), fc.constant(null), tie("list"), tie("object")),
    list: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.dictionary(piece, tie("value"), { maxKeys: 4 }),
  })).object;

  it("a JSON document, compact or indented, parses to its values each redacted, and keeps its layout elsewhere", () => {
    fc.assert(
      fc.property(json, fc.constantFrom(0, 2, "\t"), (doc, indent) => {
        const text = JSON.stringify(doc, null, indent);
        const redacted = redactDocument(text, "json");
        const marker = (value: string) => redactDocument(JSON.stringify(value), "json");
        const redactString = (value: string, key: string | null) =>
          key === null ? (JSON.parse(marker(value)) as string) : Object.values(JSON.parse(redactDocument(JSON.stringify({ [key]: value }), "json")) as Record<string, string>)[0];
        expect(JSON.parse(redacted)).toEqual(redactedValueByValue(doc, null, redactString));
        expect(redacted).not.toContain(token);
        if (!text.includes(token)) expect(redacted).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it("a YAML document parses to its values each redacted", () => {
    fc.assert(
      fc.property(json, (doc) => {
        const text = stringifyYaml(doc);
        const redacted = redactDocument(text, "yaml");
        expect(redacted).not.toContain(token);
        expect(parseYaml(redacted)).toEqual(JSON.parse(redactDocument(JSON.stringify(parseYaml(text)), "json")));
      }),
      { numRuns: 200 },
    );
  });
});
