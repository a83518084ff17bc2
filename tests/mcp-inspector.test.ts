import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgent, triggerHandoff } from "../lib/agents";
import { createHandoff } from "../lib/handoffs";
import { withSingleTypes } from "../lib/mcp/single-type-schemas";
import { BATON_TOOL_NAMES } from "./support/mcp-clients";

/**
 * MCP Inspector's CLI (the real client, a devDependency) against `baton mcp` over stdio on this
 * file's data folder: it lists tools, prompts, resources and templates, and its schema lint
 * (which flags, among others, every `type` array) finds nothing.
 */
const projectRoot = path.resolve(import.meta.dirname, "..");
const inspectorCli = path.join(projectRoot, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");

type Json = Record<string, unknown>;
type Run = { code: number | null; stdout: string; stderr: string };

let home = "";
let handoffId = "";
let agentId = 0;

beforeAll(async () => {
  // Inspector may keep a catalog under $HOME: give it a throwaway one.
  home = fs.mkdtempSync(path.join(os.tmpdir(), "baton-inspector-home-"));
  handoffId = (await createHandoff({ title: "Listed by Inspector", content: "a handoff to list" })).handoff.id;
  agentId = (await registerAgent({ personaSlug: "developer" })).id;
  await triggerHandoff({ agentId, reason: "shift_end", document: "# Handoff\n\nNext: nothing." });
});

afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

/** `mcp-inspector --cli <env> node bin/baton.mjs mcp --method <method> …`; the server gets only the environment named with -e. */
function inspect(method: string, extra: string[] = []): Promise<Run> {
  const env = ["BATON_DATA_DIR", "DATABASE_URL"].flatMap((key) => ["-e", `${key}=${process.env[key]}`]);
  const args = [inspectorCli, "--cli", ...env, "--cwd", projectRoot, process.execPath, "bin/baton.mjs", "mcp", "--method", method, ...extra];
  const child = spawn(process.execPath, args, { cwd: projectRoot, env: { ...process.env, HOME: home } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

/** Inspector's text mode prints the result as JSON on stdout and its lint summary on stderr. */
async function listed(method: string): Promise<Json> {
  const run = await inspect(method);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toMatch(/Schema portability|Warning:|Error:/);
  return JSON.parse(run.stdout) as Json;
}

/** Every `type` keyword in a schema whose value is an array, by path. */
function typeArrays(schema: unknown, at = "$"): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item, index) => typeArrays(item, `${at}[${index}]`));
  if (schema === null || typeof schema !== "object") return [];
  return Object.entries(schema).flatMap(([key, value]) => (key === "type" && Array.isArray(value) ? [`${at}.type`] : typeArrays(value, `${at}.${key}`)));
}

describe("MCP Inspector's CLI over stdio", () => {
  it("lists the ten tools with zero schema warnings, nullable fields as anyOf with null", { timeout: 60_000 }, async () => {
    const { tools } = (await listed("tools/list")) as { tools: { name: string; inputSchema: Json; outputSchema?: Json }[] };
    expect(tools.map((tool) => tool.name).sort()).toEqual(BATON_TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(typeArrays(tool.inputSchema), tool.name).toEqual([]);
      expect(typeArrays(tool.outputSchema), tool.name).toEqual([]);
    }
    const handoff = (tools.find((tool) => tool.name === "create_handoff")!.outputSchema!.properties as Record<string, Json>).handoff;
    expect((handoff.properties as Record<string, Json>).closed_at).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });

    // --strict: findings in full, and in the JSON envelope when there are any.
    const strict = await inspect("tools/list", ["--strict", "--format", "json"]);
    expect(strict.code, strict.stderr).toBe(0);
    expect(strict.stderr).not.toMatch(/Warning:|Error:/);
    const envelope = JSON.parse(strict.stdout) as { result: { tools: unknown[] }; schemaFindings?: unknown };
    expect(envelope.schemaFindings).toBeUndefined();
    expect(envelope.result.tools).toHaveLength(10);
  });

  it("lists the three prompts", { timeout: 30_000 }, async () => {
    const { prompts } = (await listed("prompts/list")) as { prompts: { name: string }[] };
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual(["end_shift", "handoff_to_code", "pickup"]);
  });

  it("lists the handoff and the shift document as resources", { timeout: 30_000 }, async () => {
    const { resources } = (await listed("resources/list")) as { resources: { uri: string; mimeType: string }[] };
    expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining([`baton://handoffs/${handoffId}`, `baton://agents/${agentId}/handoff`]));
    expect(resources.every((resource) => resource.mimeType === "text/markdown")).toBe(true);
  });

  it("lists the two resource templates", { timeout: 30_000 }, async () => {
    const { resourceTemplates } = (await listed("resources/templates/list")) as { resourceTemplates: { uriTemplate: string; name: string }[] };
    expect(resourceTemplates.map((template) => [template.name, template.uriTemplate])).toEqual([
      ["handoff", "baton://handoffs/{id}"],
      ["shift-document", "baton://agents/{id}/handoff"],
    ]);
  });
});

describe("withSingleTypes", () => {
  it("splits every type array into anyOf branches and leaves data keywords and other keywords alone", () => {
    const schema = {
      type: "object",
      properties: {
        type: { type: ["string", "null"], description: "a property named type", maxLength: 10 },
        list: { type: "array", items: { type: ["integer", "null"] } },
        fixed: { const: { type: ["not", "a", "schema"] }, default: { type: ["data"] }, enum: [{ type: ["x"] }] },
      },
      required: ["type"],
    };
    expect(withSingleTypes(schema)).toEqual({
      type: "object",
      properties: {
        type: { anyOf: [{ type: "string" }, { type: "null" }], description: "a property named type", maxLength: 10 },
        list: { type: "array", items: { anyOf: [{ type: "integer" }, { type: "null" }] } },
        fixed: { const: { type: ["not", "a", "schema"] }, default: { type: ["data"] }, enum: [{ type: ["x"] }] },
      },
      required: ["type"],
    });
  });
});
