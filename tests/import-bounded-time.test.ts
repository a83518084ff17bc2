import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { apiServerForFile } from "./support/api-server";
import { temporaryFolders } from "./support/temp-folders";

/**
 * An import's quality check (is the instruction vague?) searched the whole instruction with a
 * pattern that backtracks through a long word at every position: a 64 KiB one-word
 * handoff_instruction or `now` took about 4 s of the server's time per request, previews included,
 * for anyone who may import. Over the API, on a real socket.
 */
const api = apiServerForFile();
const bin = path.resolve(import.meta.dirname, "..", "bin", "baton.mjs");
const tempFolder = temporaryFolders("baton-bounded-time-");

async function timedImport(text: string, dryRun: boolean): Promise<{ status: number; ms: number; body: { warnings?: { code: string }[] } }> {
  const started = performance.now();
  const response = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, dryRun }) });
  const body = await response.json();
  return { status: response.status, ms: performance.now() - started, body };
}

describe("an import's quality check takes bounded time", () => {
  it("a 64 KiB one-word instruction or now is previewed and imported within 2 s (it took 4 s of CPU), even on a loaded machine", async () => {
    const seed = JSON.parse(EXAMPLE_DOCUMENTS.handoff_json.text);
    const documents = [
      JSON.stringify({ ...seed, handoff_instruction: "w".repeat(65_000) }),
      `goal: Ship it\nstatus: in_progress\nnow: ${"a-".repeat(32_000)}\nfiles: [a.ts]\ntimestamp: 2026-01-17T10:30:00Z\n`,
    ];
    for (const text of documents) {
      for (const dryRun of [true, false]) {
        const { status, ms } = await timedImport(text, dryRun);
        expect(status).toBe(dryRun ? 200 : 201);
        expect(ms).toBeLessThan(2_000);
      }
    }
    // The check itself still tells a vague instruction from a concrete one.
    const vague = await timedImport(JSON.stringify({ ...seed, handoff_instruction: "Continue working on the feature" }), true);
    expect(vague.body.warnings?.map((warning) => warning.code)).toContain("vague_instruction");
    const concrete = await timedImport(JSON.stringify({ ...seed, handoff_instruction: `Continue in src/auth.ts ${"w".repeat(65_000)}` }), true);
    expect(concrete.body.warnings?.map((warning) => warning.code)).not.toContain("vague_instruction");
  }, 60_000);
});

/** A handoff.yaml (YAML or JSON text) of about 1 MiB, its size in keys flow-guardian tolerates. */
const manyKeys = (count: number, json: boolean) => {
  const keys = Array.from({ length: count }, (_, index) => [`k${index}`, "v"]);
  const fields = { goal: "Ship it", status: "in_progress", now: "Wire handleSubmit in a.ts", files: ["a.ts"], timestamp: "2026-01-17T10:30:00Z" };
  return json ? JSON.stringify({ ...fields, ...Object.fromEntries(keys) }) : `${Object.entries(fields).map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join("\n")}\n${keys.map(([key, value]) => `${key}: ${value}`).join("\n")}\n`;
};

/** About 1 MiB of YAML made of small nodes, in the shapes the parser builds its tree from, each past 500,000 nodes. */
const nodesHead = "goal: Never stored nodes\nstatus: in_progress\nnow: Wire handleSubmit in a.ts\ntimestamp: 2026-01-17T10:30:00Z\n";
const smallNodes = {
  blockList: `${nodesHead}extra:\n${"- a\n".repeat(260_000)}`,
  flowList: `${nodesHead}extra: [${"1,".repeat(520_000)}1]\n`,
  flowMaps: `${nodesHead}extra: [${"{a: 1},".repeat(140_000)}{}]\n`,
  emptyItems: `${nodesHead}extra:\n${"-\n".repeat(500_000)}`,
};

describe("a YAML document is refused past 10,000 nodes, before it is parsed", () => {
  it("1 MiB of small nodes (or 80,000 keys, or JSON of 60,000 read as handoff.yaml) is refused naming the limit (an import with a 400, a preview with ok: false), storing nothing, in well under a second; it took 2-3 s and 400-1,100 MB, then imported", async () => {
    const documents = [...Object.values(smallNodes), manyKeys(80_000, false), manyKeys(60_000, true)];
    for (const text of documents) {
      expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
      for (const dryRun of [true, false]) {
        const { status, ms, body } = await timedImport(text, dryRun);
        // A preview answers its refusal as 200 with ok: false (the API's contract); an import is a 400.
        const fieldErrors = { "(document)": ["must have at most 10,000 YAML nodes (keys, values and list items)"] };
        expect(body).toMatchObject(dryRun ? { ok: false, fieldErrors } : { error: { code: "INVALID", fieldErrors } });
        expect(status).toBe(dryRun ? 200 : 400);
        expect(ms).toBeLessThan(1_000);
      }
    }
    // A format the caller chose is checked before the secrets pass reads every string.
    const chosen = await api.fetch("/api/import", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: smallNodes.flowList, format: "yaml" }) });
    expect(chosen.status).toBe(400);
    const listed = await api.fetch("/api/handoffs");
    expect(listed.status).toBe(200);
    expect(await listed.text()).not.toContain("Never stored nodes");
  }, 120_000);

  it("a document of 3,000 keys (9,000 nodes) still previews and imports, in well under a second; a repeated key is still refused", async () => {
    const text = manyKeys(3_000, false);
    for (const dryRun of [true, false]) {
      const { status, ms } = await timedImport(text, dryRun);
      expect(status).toBe(dryRun ? 200 : 201);
      expect(ms).toBeLessThan(1_000);
    }
    for (const [text, where] of [
      ["goal: a\nstatus: in_progress\nnow: b\ngoal: c\n", '"goal" again at line 4, column 1'],
      ["goal: a\nstatus: in_progress\nnow: b\nextra:\n  x: 1\n  y: 2\n  x: 3\n", '"x" again at line 7, column 3'],
    ]) {
      const { body } = await timedImport(text, true);
      expect(body).toMatchObject({ ok: false, fieldErrors: { "(document)": [`invalid YAML: Map keys must be unique: ${where}`] } });
    }
  }, 60_000);

  it("baton checkpoint refuses a project's handoff.yaml of 1 MiB of small nodes at once and leaves it (a cloned repository's file runs in the PreCompact hook)", async () => {
    const project = tempFolder();
    fs.mkdirSync(path.join(project, ".flow-guardian"));
    const file = path.join(project, ".flow-guardian", "handoff.yaml");
    fs.writeFileSync(file, smallNodes.flowList);
    const started = performance.now();
    const ran = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, "checkpoint", "--now", "Reading the nodes"], { cwd: project, env: process.env, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    expect(ran.stderr).toContain("more than 10,000 YAML nodes");
    expect(ran.code).not.toBe(0);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(fs.readFileSync(file, "utf8")).toBe(smallNodes.flowList);
  }, 60_000);
});
