import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { dataDir } from "../lib/config";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { SECRET_SAMPLES, secretPartOf } from "./fixtures/secrets/corpus";
import { apiServerForFile } from "./support/api-server";
import { rowsOf } from "./support/rows";
import { runBaton } from "./support/baton-command";

/**
 * A secret spelled with escapes (JSON's `\u0067`, YAML's `\x67`) is the same token to every
 * reader of the document, so it is redacted like one written plainly: in the entries, the kept
 * document, its export and a bundle's blob. The raw text was scanned, found clean, and kept.
 */
const api = apiServerForFile();
const token = SECRET_SAMPLES.find((sample) => sample.name === "GitHub personal token")!.value;
/** Every character escaped: no scan of the raw text sees a token, nor a run of random letters. */
const escaped = (prefix: string, digits: number) => [...token].map((char) => `\\${prefix}${char.charCodeAt(0).toString(16).padStart(digits, "0")}`).join("");
const inJson = escaped("u", 4);
const inYaml = escaped("x", 2);

const documents = {
  handoff_json: EXAMPLE_DOCUMENTS.handoff_json.text
    .replace('"blockers": []', `"blockers": ["CI needs the token ${inJson}"], "deploy_note": "${inJson}"`),
  handoff_yaml: EXAMPLE_DOCUMENTS.handoff_yaml.text.replace('now: "Debugging token expiry in auth.py"', `now: "Push with ${inYaml}"\nextra: "${inYaml}"`),
  bundle: EXAMPLE_DOCUMENTS.bundle.text.replace('"summary_markdown": "### Summary\\n- …\\n"', `"summary_markdown": "### Summary\\n- token ${inJson}\\n", "x": "${inJson}"`),
};

async function exportWithCli(id: string, format: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runBaton(["export", id, "--format", format]);
  return { status: code, stdout, stderr };
}

const blobTexts = () => {
  const folder = path.join(dataDir(), "artifacts", "blobs");
  return fs.existsSync(folder) ? fs.readdirSync(folder).map((name) => fs.readFileSync(path.join(folder, name), "utf8")) : [];
};

describe("a secret written with escapes in an imported document", () => {
  it.each(Object.entries(documents))("%s: redacted in the entries, the kept document, the blob and the export", async (format, text) => {
    expect(text).not.toContain(token);
    const answer = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) });
    const imported = await answer.json();
    expect(answer.status, JSON.stringify(imported).slice(0, 400)).toBe(201);
    expect(imported.format).toBe(format);
    const id: string = imported.handoff.id;

    const [source] = await rowsOf<{ document: string }>("SELECT document FROM handoff_sources WHERE handoff_id = ?", [id]);
    const entries = await rowsOf<{ content: string }>("SELECT content FROM handoff_entries WHERE handoff_id = ?", [id]);
    const artifacts = await rowsOf<{ content: string | null }>("SELECT content FROM artifacts");
    const stored = [source.document, ...entries.map((entry) => entry.content), ...artifacts.map((artifact) => artifact.content ?? ""), ...blobTexts()];
    for (const text of stored) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(inJson);
      expect(text).not.toContain(inYaml);
    }
    expect(source.document.match(/\[redacted: github\]/g)).toHaveLength(2);
    expect(imported.redactions.filter((redaction: { field: string }) => redaction.field === "text")).toHaveLength(2);

    const exported = await exportWithCli(id, format === "bundle" ? "bundle" : format === "handoff_json" ? "json" : "yaml");
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout).not.toContain(token);
    expect(exported.stdout).toContain("[redacted: github]");
  }, 60_000);
});

describe("an .env line inside a JSON string, after a \\n", () => {
  it("is redacted in the kept document and its export as in the entry made of it", async () => {
    const sample = SECRET_SAMPLES.find((candidate) => candidate.name === "client secret")!;
    const secret = secretPartOf(sample);
    // In the raw text the assignment follows the two characters \ and n, on no line of its own: no scan saw it.
    const text = EXAMPLE_DOCUMENTS.handoff_json.text
      .replace(/"handoff_instruction": "[^"]*"/, `"handoff_instruction": "Run the deploy script with these set:\\n${sample.value}"`)
      .replace('"blockers": []', `"blockers": [], "notes": "Staging keys\\n${sample.value}"`);
    const answer = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) });
    const imported = await answer.json();
    expect(answer.status, JSON.stringify(imported).slice(0, 400)).toBe(201);
    const [source] = await rowsOf<{ document: string }>("SELECT document FROM handoff_sources WHERE handoff_id = ?", [imported.handoff.id]);
    const entries = await rowsOf<{ content: string }>("SELECT content FROM handoff_entries WHERE handoff_id = ?", [imported.handoff.id]);
    for (const stored of [source.document, ...entries.map((entry) => entry.content)]) expect(stored).not.toContain(secret);
    expect(source.document.match(/\[redacted: env-assignment\]/g)).toHaveLength(2);
    // Where each one is: the line of the string that holds it.
    const lines = imported.redactions.filter((redaction: { field: string }) => redaction.field === "text").map((redaction: { line: number }) => redaction.line);
    expect(lines).toEqual([text.split("\n").findIndex((line) => line.includes('"blockers"')) + 1, text.split("\n").findIndex((line) => line.includes('"handoff_instruction"')) + 1].sort((a, b) => a - b));

    const exported = await exportWithCli(imported.handoff.id, "json");
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stdout).not.toContain(secret);
  }, 60_000);
});

describe("every secret of the corpus in every shape a handoff.yaml can hold it", () => {
  const head = 'goal: "Ship auth"\nstatus: in_progress\nnow: "Debugging token expiry"\nfiles: [a.py]\ntimestamp: "2026-01-17T10:30:00Z"\n';
  /** Where a value can stand; the raw text missed it in a flow list (`["DB_PASSWORD=…"`) and a single-quoted scalar (`''`). */
  const shapes: [string, (value: string) => string][] = [
    ["double-quoted", (value) => `x: ${JSON.stringify(value)}\n`],
    ["literal block", (value) => `x: |\n  ${value.split("\n").join("\n  ")}\n`],
    ["folded block", (value) => `x: >\n  ${value.split("\n").join("\n  ")}\n`],
    ["block list", (value) => `x:\n  - ${JSON.stringify(value)}\n`],
    ["flow list", (value) => `x: [${JSON.stringify(value)}, b]\n`],
    ["flow map", (value) => `x: {k: ${JSON.stringify(value)}}\n`],
    ["single-quoted", (value) => `x: 'single ${value.replace(/'/g, "''").split("\n").join("\n\n  ")}'\n`],
    ["key", (value) => `${JSON.stringify(value)}: key\n`],
    ["comment", (value) => `# ${value.split("\n").join("\n# ")}\n`],
  ];

  it("is imported with the secret gone from the kept document", async () => {
    const left: string[] = [];
    for (const sample of SECRET_SAMPLES) {
      const lines = secretPartOf(sample).split("\n").filter((line) => line.length >= 12 && !line.startsWith("-----"));
      for (const [shape, write] of shapes) {
        const text = head + write(sample.value);
        const answer = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, fileName: "handoff.yaml" }) });
        const imported = await answer.json();
        if (answer.status !== 201) {
          left.push(`${sample.name} as ${shape}: ${answer.status} ${JSON.stringify(imported).slice(0, 160)}`);
          continue;
        }
        const [source] = await rowsOf<{ document: string }>("SELECT document FROM handoff_sources WHERE handoff_id = ?", [imported.handoff.id]);
        if (lines.some((line) => source.document.includes(line))) left.push(`${sample.name} as ${shape}: kept`);
      }
    }
    expect(left).toEqual([]);
  }, 120_000);
});

describe("a value that is a secret by its key, in a list under that key", () => {
  // `OAUTH_CLIENT_SECRET: [<value>]`: the value alone is a random word, `OAUTH_CLIENT_SECRET=<value>` an .env secret.
  // JSON's items took the list's key; YAML's took none, so the import kept the value in a handoff.yaml.
  const sample = SECRET_SAMPLES.find((candidate) => candidate.name === "client secret")!;
  const [key] = sample.value.split("=");
  const secret = secretPartOf(sample);
  const head = 'goal: "Ship auth"\nstatus: in_progress\nnow: "Debugging token expiry"\nfiles: [a.py]\ntimestamp: "2026-01-17T10:30:00Z"\n';
  const shapes: [string, string][] = [
    ["handoff.yaml, block list", `${head}${key}:\n  - ${secret}\n`],
    ["handoff.yaml, flow list", `${head}${key}: [${secret}, b]\n`],
    ["handoff.yaml, list in a list", `${head}${key}:\n  - - ${secret}\n`],
    ["handoff.json, list", EXAMPLE_DOCUMENTS.handoff_json.text.replace('"blockers": []', `"blockers": [], "${key}": ["${secret}"]`)],
  ];

  it.each(shapes)("%s: redacted in the kept document", async (_shape, text) => {
    const answer = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text }) });
    const imported = await answer.json();
    expect(answer.status, JSON.stringify(imported).slice(0, 400)).toBe(201);
    const [source] = await rowsOf<{ document: string }>("SELECT document FROM handoff_sources WHERE handoff_id = ?", [imported.handoff.id]);
    expect(source.document).not.toContain(secret);
    expect(source.document).toContain("[redacted: env-assignment]");
  }, 60_000);
});
