import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgent } from "../lib/agents";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { getHandoff } from "../lib/handoffs";
import { database, read } from "../lib/database";
import { LOOK_ALIKES, SECRET_SAMPLES, embed, embeddingOf, secretPartOf } from "./fixtures/secrets/corpus";
import { lazyRoutes, serveApi, type ApiServer } from "./support/api-server";
import { everyRowAsText } from "./support/rows";
import { connectHttpClient, connectStdioClient } from "./support/mcp-clients";

/**
 * Every door Baton has for text, with the corpus of fake secrets: in the default policy every
 * secret is redacted and the writer told where; under BATON_SECRETS=refuse nothing is stored and
 * the refusal names kind and position. Afterwards no secret is anywhere in the data folder
 * (database, WAL, blobs, shift documents) or in any output a door wrote.
 */
const dataDir = process.env.BATON_DATA_DIR!;
const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");
const temporary: string[] = [];
const outputs: string[] = [];
/** Baton's HTTP server (guard, REST and MCP), in this process, so BATON_SECRETS set below applies to it. */
let api: ApiServer;

beforeAll(async () => {
  api = await serveApi();
});
afterAll(async () => {
  await api?.close();
  for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
});

/** Routes of the server above, looked up when called (the server starts in beforeAll). */
const route = lazyRoutes(() => api);
const agentHandoffRoute = route("POST", "/api/agents/:id/handoff");
const entriesRoute = route("POST", "/api/handoffs/:id/entries");
const createRoute = route("POST", "/api/handoffs");
const importRoute = route("POST", "/api/import");

/** Lines of every secret long enough to be unmistakable (a PEM key is checked line by line). */
const needles = SECRET_SAMPLES.flatMap((sample) => secretPartOf(sample).split("\n").filter((line) => line.length >= 12 && !line.startsWith("-----")));

/** Half the corpus per text keeps each under the 64 KiB entry limit with room to spare. */
const halves = [SECRET_SAMPLES.slice(0, 18), SECRET_SAMPLES.slice(18)];
const textOf = (samples: typeof SECRET_SAMPLES, offset = 0) => samples.map((sample, i) => embed(sample, embeddingOf(i + offset))).join("\n\n");

function expectClean(text: string) {
  for (const needle of needles) expect(text.includes(needle), `a secret is left: ${needle.slice(0, 6)}…`).toBe(false);
}

/**
 * One CLI run. Not spawnSync: the server above lives in this process and must go on answering
 * (and closing idle connections on time) while the command runs.
 */
function baton(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (status) => {
      outputs.push(stdout, stderr);
      resolve({ status, stdout, stderr });
    });
  });
}

const post = (url: string, body: unknown) => new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const idParams = (id: string) => ({ params: Promise.resolve({ id }) });

async function storedEntries(id: string): Promise<string[]> {
  return (await read((tx) => tx.all<{ content: string }>("SELECT content FROM handoff_entries WHERE handoff_id = ? ORDER BY seq", [id]))).map((row) => row.content);
}

const storedDocument = async (id: string) => (await read((tx) => tx.get<{ document: string }>("SELECT document FROM handoff_sources WHERE handoff_id = ?", [id])))!;

async function countRows(): Promise<number> {
  return read(async (tx) => {
    let rows = 0;
    for (const table of ["handoffs", "handoff_entries", "handoff_sources", "handoff_records"]) rows += (await tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
    return rows;
  });
}


type Redactions = { field: string; kind: string; line: number; column: number }[];
const caught = { redacted: 0, refused: 0, samples: 0 };

describe("secrets through every door (BATON_SECRETS=redact, the default)", () => {
  let stdio: Awaited<ReturnType<typeof connectStdioClient>>;
  let http: Client;
  beforeAll(async () => {
    stdio = await connectStdioClient({ args: ["--as", "code"] });
    http = await connectHttpClient(`${api.origin}/api/mcp`);
  }, 60_000);
  afterAll(async () => {
    await stdio?.client.close();
    await http?.close();
    outputs.push(stdio?.stderr() ?? "");
  });

  it("REST create and append", async () => {
    const created = await createRoute(post("http://localhost/api/handoffs", { title: "Staging notes", content: textOf(halves[0]) }));
    expect(created.status).toBe(201);
    const body = await created.json();
    outputs.push(JSON.stringify(body));
    expect((body.redactions as Redactions).length).toBeGreaterThanOrEqual(halves[0].length);
    const appended = await entriesRoute(post(`http://localhost/api/handoffs/${body.handoff.id}/entries`, { type: "progress", content: textOf(halves[1], 18) }), idParams(body.handoff.id));
    expect(appended.status).toBe(201);
    const added = await appended.json();
    outputs.push(JSON.stringify(added));
    expect((added.redactions as Redactions).length).toBeGreaterThanOrEqual(halves[1].length);
    expect(added.redactions[0]).toEqual({ field: "content", kind: expect.any(String), line: expect.any(Number), column: expect.any(Number), offset: expect.any(Number) });
    for (const content of await storedEntries(body.handoff.id)) {
      expectClean(content);
      expect(content).toContain("[redacted: ");
    }
    caught.redacted += body.redactions.length + added.redactions.length;
    caught.samples += SECRET_SAMPLES.length;
  });

  it("MCP over stdio and over HTTP: the result lists the redactions and leads with a notice", async () => {
    for (const client of [stdio.client, http]) {
      const result = await client.callTool({ name: "create_handoff", arguments: { title: "MCP notes", content: textOf(halves[1], 1), as_client: "chat" } });
      expect(result.isError).toBeFalsy();
      const structured = result.structuredContent as { handoff: { id: string }; redactions: Redactions };
      expect(structured.redactions.length).toBeGreaterThanOrEqual(halves[1].length);
      const lead = (result.content as { type: string; text: string }[])[0].text;
      expect(lead).toMatch(/^Baton redacted \d+ secrets before storing/);
      outputs.push(JSON.stringify(result));
      const added = await client.callTool({ name: "add_to_handoff", arguments: { id: structured.handoff.id, type: "decision", content: textOf(halves[0], 2), as_client: "code" } });
      expect(added.isError).toBeFalsy();
      expect((added.structuredContent as { redactions: Redactions }).redactions.length).toBeGreaterThanOrEqual(halves[0].length);
      outputs.push(JSON.stringify(added));
      for (const content of await storedEntries(structured.handoff.id)) expectClean(content);
      caught.redacted += structured.redactions.length + (added.structuredContent as { redactions: Redactions }).redactions.length;
      caught.samples += SECRET_SAMPLES.length;
    }
  }, 60_000);

  it("REST and CLI imports (handoff.json, handoff.yaml, a bundle) keep document, entries and blob clean", async () => {
    const json = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
    json.context_learned = halves[0].map((sample, i) => embed(sample, embeddingOf(i)));
    // The file name is kept and shown beside the thread: a token in it was stored as given.
    const forge = SECRET_SAMPLES.find((sample) => sample.family === "forge")!;
    const rest = await importRoute(post("http://localhost/api/import", { text: JSON.stringify(json, null, 2), fileName: `handoff-${forge.value}.json` }));
    const imported = await rest.json();
    expect(rest.status, JSON.stringify(imported).slice(0, 600)).toBe(201);
    outputs.push(JSON.stringify(imported));
    expect(imported.redactions.length).toBeGreaterThanOrEqual(halves[0].length + 1);
    expect(imported.redactions[0].field).toBe("text");
    expect(imported.redactions.at(-1)).toMatchObject({ field: "fileName", line: 1 });

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-secrets-"));
    temporary.push(dir);
    const indented = (text: string) => text.split("\n").map((line) => `  ${line}`).join("\n");
    const yaml = EXAMPLE_DOCUMENTS.handoff_yaml.text.replace(/^hypothesis: .*$/m, `hypothesis: |\n${indented(textOf(halves[1], 1))}`);
    fs.writeFileSync(path.join(dir, "handoff.yaml"), yaml);
    const bundle = JSON.parse(EXAMPLE_DOCUMENTS.bundle.text);
    bundle.summary_markdown = textOf(halves[0], 2);
    fs.writeFileSync(path.join(dir, "bundle.json"), JSON.stringify(bundle));
    for (const file of ["handoff.yaml", "bundle.json"]) {
      const result = await baton(dir, ["import", file]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/redacted a secret \(.+ at line \d+, column \d+\) in text/);
      caught.redacted += result.stderr.split("\n").filter((line) => line.startsWith("redacted a secret")).length;
      const id = result.stdout.trim();
      const source = await storedDocument(id);
      expectClean(source.document);
      expect(source.document).toContain("[redacted: ");
      for (const content of await storedEntries(id)) expectClean(content);
      expect((await getHandoff({ id })).handoff.title).not.toContain("[redacted");
    }
  }, 60_000);

  it("CLI checkpoint --push: the entry and the kept handoff.yaml are redacted, the local file is the user's", async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), "baton-secrets-repo-"));
    temporary.push(repo);
    execFileSync("git", ["-C", repo, "init", "-q", "-b", "main"]);
    const secret = SECRET_SAMPLES.find((sample) => sample.family === "forge")!;
    const first = await baton(repo, ["checkpoint", "--goal", "ship", "--now", `deploying with ${secret.value}`, "--push"]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/redacted a secret \(github at line 3, column \d+\) in text/);
    const again = await baton(repo, ["checkpoint", "--now", `still ${SECRET_SAMPLES[0].value}`, "--push"]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/redacted a secret \(aws at line \d+, column \d+\) in text/);
    caught.redacted += 2;
    const id = /handoff (hof_\S+)/.exec(again.stdout)![1];
    const source = await storedDocument(id);
    expectClean(source.document);
    for (const content of await storedEntries(id)) expectClean(content);
    // The project's own handoff.yaml is the user's file, outside Baton's data folder: left as written.
    expect(fs.readFileSync(path.join(repo, ".flow-guardian", "handoff.yaml"), "utf8")).toContain(SECRET_SAMPLES[0].value);
  });

  it("shift documents are redacted before the file is written", async () => {
    const agent = await registerAgent({ personaSlug: "developer", project: "secrets" });
    const response = await agentHandoffRoute(post(`http://localhost/api/agents/${agent.id}/handoff`, { reason: "shift_end", document: textOf(SECRET_SAMPLES) }), idParams(String(agent.id)));
    expect(response.status).toBe(201);
    const handed = await response.json();
    outputs.push(JSON.stringify(handed));
    expect(handed.redactions.length).toBeGreaterThanOrEqual(SECRET_SAMPLES.length);
    expect(handed.redactions[0].field).toBe("document");
    const written = fs.readFileSync(path.join(dataDir, handed.record.filePath), "utf8");
    expectClean(written);
    caught.redacted += handed.redactions.length;
    caught.samples += SECRET_SAMPLES.length;
  });

  it("look-alikes are stored exactly as written", async () => {
    const content = LOOK_ALIKES.join("\n\n");
    const body = await (await createRoute(post("http://localhost/api/handoffs", { title: "Not secrets", content }))).json();
    expect(body.redactions).toEqual([]);
    expect(await storedEntries(body.handoff.id)).toEqual([content]);
  });
});

describe("BATON_SECRETS=refuse", () => {
  const previous = process.env.BATON_SECRETS;
  beforeAll(() => void (process.env.BATON_SECRETS = "refuse"));
  afterAll(() => void (previous === undefined ? delete process.env.BATON_SECRETS : (process.env.BATON_SECRETS = previous)));

  it("refuses every door with kind and position, never the value, and stores nothing", async () => {
    const before = await countRows();
    const created = await createRoute(post("http://localhost/api/handoffs", { title: "Refused", content: textOf(halves[0]) }));
    expect(created.status).toBe(400);
    const refused = await created.json();
    outputs.push(JSON.stringify(refused));
    expect(refused.error.code).toBe("INVALID");
    expect(refused.error.fieldErrors.content.length).toBeGreaterThanOrEqual(halves[0].length);
    expect(refused.error.fieldErrors.content[0]).toMatch(/^contains a secret \(.+ at line \d+, column \d+\); remove it/);
    caught.refused += refused.error.fieldErrors.content.length;

    const { handoff } = await (await createRoute(post("http://localhost/api/handoffs", { title: "Clean", content: "nothing secret" }))).json();
    const afterClean = await countRows();
    const appended = await entriesRoute(post(`http://localhost/api/handoffs/${handoff.id}/entries`, { type: "progress", content: textOf(halves[1]) }), idParams(handoff.id));
    expect(appended.status).toBe(400);
    outputs.push(await appended.text());

    const imported = await importRoute(post("http://localhost/api/import", { text: EXAMPLE_DOCUMENTS.handoff_yaml.text.replace("abc123", SECRET_SAMPLES[7].value) }));
    expect(imported.status).toBe(400);
    const importRefusal = await imported.json();
    outputs.push(JSON.stringify(importRefusal));
    expect(importRefusal.error.fieldErrors.text[0]).toMatch(/github at line 12, column 14/);

    const stdio = await connectStdioClient({ env: { BATON_SECRETS: "refuse" } });
    const result = await stdio.client.callTool({ name: "add_to_handoff", arguments: { id: handoff.id, type: "task", content: textOf(halves[0]) } });
    await stdio.client.close();
    outputs.push(JSON.stringify(result), stdio.stderr());
    expect(result.isError).toBe(true);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-secrets-refuse-"));
    temporary.push(dir);
    fs.writeFileSync(path.join(dir, "handoff.yaml"), EXAMPLE_DOCUMENTS.handoff_yaml.text.replace("abc123", SECRET_SAMPLES[0].value));
    const cli = await baton(dir, ["import", "handoff.yaml"], { BATON_SECRETS: "refuse" });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/nothing was stored/);
    expect(cli.stderr).toMatch(/aws at line 12, column 14/);

    const agent = await registerAgent({ personaSlug: "developer", project: "secrets" });
    const handed = await agentHandoffRoute(post(`http://localhost/api/agents/${agent.id}/handoff`, { reason: "shift_end", document: textOf(halves[1]) }), idParams(String(agent.id)));
    expect(handed.status).toBe(400);
    outputs.push(await handed.text());

    expect(await countRows()).toBe(afterClean);
    expect(afterClean).toBe(before + 2);
  }, 60_000);
});

describe("nothing of any secret anywhere", () => {
  it("is in the database (its file and WAL on SQLite, its rows on PostgreSQL), the blobs, the shift documents or anything a door printed", async () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else files.push(full);
      }
    };
    walk(dataDir);
    const onSqlite = database().engine === "sqlite";
    expect(files.some((file) => file.endsWith("baton.db"))).toBe(onSqlite);
    expect(files.some((file) => file.includes(`${path.sep}blobs${path.sep}`))).toBe(true);
    for (const file of files) {
      const bytes = fs.readFileSync(file).toString("latin1");
      for (const needle of needles) expect(bytes.includes(needle), `${path.relative(dataDir, file)} holds a secret`).toBe(false);
    }
    if (!onSqlite) expectClean(await everyRowAsText());
    for (const output of outputs) expectClean(output);
    console.log(
      `secrets through the doors: ${caught.redacted} redactions reported for ${caught.samples} samples sent in full texts, ${caught.refused} refusals named; ` +
        `0 of ${needles.length} secret strings found in ${files.length} files and ${outputs.length} outputs`,
    );
  });
});
