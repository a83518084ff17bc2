import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { apiServerForFile } from "./support/api-server";
import { temporaryFolders } from "./support/temp-folders";
import { runBaton } from "./support/baton-command";

/**
 * Every format keeps keys it does not know (seed 003's loader tolerates them; Baton's handoff.json
 * export gives them back), so a document that also has a key another format uses is still its own
 * format. One such key used to decide: a handoff.yaml with a `reason` was read as a handoff.json
 * ("invalid JSON: Unexpected token 'g'"), a handoff.json with a `schema` as a bundle. Through the
 * API over a socket and `baton import` as users run it.
 */
const api = apiServerForFile();
const tempFolder = temporaryFolders("baton-detection-");

const yamlWithReason = `${EXAMPLE_DOCUMENTS.handoff_yaml.text.trimEnd()}\nreason: the token endpoint is down\n`;
const jsonWithSchema = JSON.stringify({ ...JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text), schema: "our-handoff/v2" }, null, 2);
const yamlAsJson = JSON.stringify({ goal: "Fix login", status: "blocked", now: "Waiting on the API team", reason: "endpoint down", timestamp: "2026-01-17T10:30:00Z" });

async function imported(text: string, fileName?: string) {
  const response = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, fileName }) });
  return { status: response.status, body: await response.json() };
}

describe("a document with another format's key is still read as its own format", () => {
  it("over the API: the preview and the import read it as its own format", async () => {
    for (const [text, fileName, format] of [
      [yamlWithReason, "handoff.yaml", "handoff_yaml"],
      [yamlWithReason, undefined, "handoff_yaml"],
      [jsonWithSchema, "handoff.json", "handoff_json"],
      [yamlAsJson, undefined, "handoff_yaml"],
    ] as const) {
      const dry = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, fileName, dryRun: true }) });
      expect(await dry.json()).toMatchObject({ ok: true, format });
      const { status, body } = await imported(text, fileName);
      expect(status, JSON.stringify(body).slice(0, 400)).toBe(201);
      expect(body.format).toBe(format);
    }
  });

  it("baton import reads them, and baton export writes the extra keys back", async () => {
    const folder = tempFolder();
    fs.writeFileSync(path.join(folder, "handoff.yaml"), yamlWithReason);
    fs.writeFileSync(path.join(folder, "handoff.json"), jsonWithSchema);
    for (const [file, format, kept] of [
      ["handoff.yaml", "yaml", /^reason: the token endpoint is down$/m],
      ["handoff.json", "json", /"schema": "our-handoff\/v2"/],
    ] as const) {
      const ran = await runBaton(["import", file], { cwd: folder });
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toMatch(new RegExp(`^imported ${file.replace(".", "\\.")} as `));
      const exported = await runBaton(["export", ran.stdout.trim(), "--format", format], { cwd: folder });
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toMatch(kept);
    }
  }, 60_000);
});

describe("what baton import says on standard error", () => {
  it("counts the entries in words that agree with the count: 1 entry, 3 entries", async () => {
    const folder = tempFolder();
    fs.writeFileSync(path.join(folder, "bundle.json"), EXAMPLE_DOCUMENTS.bundle.text);
    fs.writeFileSync(path.join(folder, "handoff.yaml"), EXAMPLE_DOCUMENTS.handoff_yaml.text);
    const bundle = await runBaton(["import", "bundle.json"], { cwd: folder });
    expect(bundle.stderr).toBe('imported rip context bundle as "Summary" (1 entry)\n');
    const yaml = await runBaton(["import", "handoff.yaml"], { cwd: folder });
    expect(yaml.stderr).toBe('imported handoff.yaml as "Implement user authentication with JWT" (3 entries)\n');
  }, 60_000);
});

describe("a document that starts with a byte order mark", () => {
  it("is read without it, over the API and by baton import", async () => {
    const bom = "\uFEFF";
    for (const text of [EXAMPLE_DOCUMENTS.handoff_json.text, EXAMPLE_DOCUMENTS.bundle.text, EXAMPLE_DOCUMENTS.handoff_yaml.text]) {
      const { status, body } = await imported(`${bom}${text}`);
      expect(status, JSON.stringify(body).slice(0, 400)).toBe(201);
    }
    const folder = tempFolder();
    fs.writeFileSync(path.join(folder, "handoff.json"), `${bom}${EXAMPLE_DOCUMENTS.handoff_json.text}`);
    const ran = await runBaton(["import", "handoff.json"], { cwd: folder });
    expect(ran.code, ran.stderr).toBe(0);
    const exported = await runBaton(["export", ran.stdout.trim(), "--format", "json"], { cwd: folder });
    expect(exported.stdout.startsWith("{")).toBe(true);
    expect(JSON.parse(exported.stdout)).toEqual(JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text));
  }, 60_000);
});

describe("a handoff.yaml that starts with a %YAML 1.1 directive", () => {
  // YAML 1.1 reads `2026-01-17T10:30:00Z` as a timestamp: the import got a date and refused a valid
  // document with "timestamp: must be an ISO 8601 date-time". It keeps the text as written.
  const text = `%YAML 1.1\n---\n${EXAMPLE_DOCUMENTS.handoff_yaml.text}`;

  it("is previewed and imported over the API, its timestamp as written", async () => {
    const dry = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, dryRun: true }) });
    expect(await dry.json()).toMatchObject({ ok: true, format: "handoff_yaml" });
    const { status, body } = await imported(text, "handoff.yaml");
    expect(status, JSON.stringify(body).slice(0, 400)).toBe(201);
  }, 60_000);

  it("is imported by baton import and exported with the timestamp it was given", async () => {
    const folder = tempFolder();
    fs.writeFileSync(path.join(folder, "handoff.yaml"), text);
    const ran = await runBaton(["import", "handoff.yaml"], { cwd: folder });
    expect(ran.code, ran.stderr).toBe(0);
    const exported = await runBaton(["export", ran.stdout.trim(), "--format", "yaml"], { cwd: folder });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/^timestamp: ["']?2026-01-17T10:30:00Z["']?$/m);
  }, 60_000);
});
