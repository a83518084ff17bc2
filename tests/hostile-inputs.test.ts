import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { renderToString } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as exportRoute } from "../app/handoffs/[id]/export/route";
import { importAction, previewImportAction } from "../app/import/actions";
import { Markdown } from "../components/ui/markdown";
import { registerAgent } from "../lib/agents";
import { run as cli } from "../lib/cli/main";
import { dataDir } from "../lib/config";
import { countRows } from "./support/rows";
import { Invalid } from "../lib/errors";
import { formatNamed } from "../lib/formats";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { createHandoff, findHandoffs } from "../lib/handoffs";
import { jsonTooDeep, MAX_NESTING, valueTooDeep } from "../lib/nesting";
import { lazyRoutes, serveApi, type ApiServer } from "./support/api-server";
import { connectInProcessClient } from "./support/in-process-mcp";
import { SECRET_SAMPLES } from "./fixtures/secrets/corpus";

const deepArrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const PROTOTYPE_KEYS = ["constructor", "__proto__", "toString", "hasOwnProperty"];
const HOSTILE_IDS: [string, string][] = [
  ["a control character", "hof_\u0007AAAAAAAAAAAAAAAAAAAA"],
  ["NUL", "hof_AAAAAAAAAA\u0000AAAAAAAAAA"],
  ["100,000 characters", `hof_${"A".repeat(100_000)}`],
  ["../", "../../etc/passwd"],
  ["a prototype key", "__proto__"],
];
/** Control characters other than newline and tab: a message must never carry one back. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;
const HOSTILE_NUMBERS = ["1e308", "-1", "99999999999999999999", "NaN", "Infinity", "0x10", "1.5"];

/** Fixtures made before the table runs: an open thread and an agent for the inputs that need one. */
let thread: string;
/** The seq of the fixture thread's one entry. */
let threadSeq: number;
let agent: number;
/** Baton's HTTP server (guard and router), started before the table runs. */
let api: ApiServer;

/** Routes of the server above, looked up when called (the server starts in beforeAll). */
const route = lazyRoutes(() => api);
const agentPatchRoute = route("PATCH", "/api/agents/:id");
const agentRoute = route("GET", "/api/agents/:id");
const chainRoute = route("GET", "/api/agents/:id/chain");
const agentListRoute = route("GET", "/api/agents");
const agentCreateRoute = route("POST", "/api/agents");
const artifactRoute = route("GET", "/api/artifacts/:id");
const entriesRoute = route("POST", "/api/handoffs/:id/entries");
const handoffRoute = route("GET", "/api/handoffs/:id");
const historyRoute = route("GET", "/api/handoffs");
const createRoute = route("POST", "/api/handoffs");
const importRoute = route("POST", "/api/import");

const url = (pathAndQuery: string) => `http://127.0.0.1${pathAndQuery}`;
const post = (pathAndQuery: string, body: unknown, method = "POST") =>
  new Request(url(pathAndQuery), { method, body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json" } });
const params = (id: string) => ({ params: Promise.resolve({ id }) });

type CliCall = { args: (files: TempFiles) => string[] };
type TempFiles = { write: (name: string, content: string | Uint8Array) => string };

/**
 * ONE table of hostile inputs. Each row says how every door that can receive it is given it:
 * `rest` (a route handler, as Next calls it), `mcp` (a tool over the in-process client) and
 * `cli` (baton's argv). Every door must answer the caller's error (4xx, a tool error, a non-zero
 * exit) with a message, and store nothing.
 */
/** The import form as the browser posts it to its server action. */
const importForm = (fields: Record<string, string>) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return importAction({ status: "idle" }, form);
};

const HOSTILE: {
  input: string;
  rest?: () => Promise<Response>;
  /** A server action's answer: refused form state, or a preview that is not ok. */
  action?: () => Promise<{ status?: string; ok?: boolean; message?: string }>;
  mcp?: { tool: string; args: () => Record<string, unknown> };
  cli?: CliCall;
}[] = [
  ...PROTOTYPE_KEYS.flatMap((key) => [
    {
      input: `format name ${key}`,
      rest: () => importRoute(post("/api/import", { text: "{}", format: key })),
      action: () => importForm({ text: "{}", format: key }),
      cli: { args: (files: TempFiles) => ["import", files.write("doc.json", "{}"), "--format", key] },
    },
    {
      input: `export format ${key}`,
      cli: { args: () => ["export", thread, "--format", key] },
    },
    {
      input: `history filter value ${key}`,
      rest: () => historyRoute(new Request(url(`/api/handoffs?status=${key}&source=${key}`))),
    },
    {
      input: `agent filter value ${key}`,
      rest: () => agentListRoute(new Request(url(`/api/agents?status=${key}&persona=${key}`))),
    },
    {
      input: `entry type ${key}`,
      rest: () => entriesRoute(post(`/api/handoffs/${thread}/entries`, { type: key, content: "x" }), params(thread)),
      mcp: { tool: "add_to_handoff", args: () => ({ id: thread, type: key, content: "x" }) },
    },
    {
      input: `side (asClient) ${key}`,
      rest: () => createRoute(post("/api/handoffs", { title: "t", content: "c", asClient: key })),
      mcp: { tool: "create_handoff", args: () => ({ title: "t", content: "c", as_client: key }) },
    },
    {
      input: `command ${key}`,
      cli: { args: () => [key] },
    },
  ]),
  // PostgreSQL's text cannot hold NUL: both engines refuse it (lib/database/params.ts), never a 500.
  // A device that never ends: the import reads one chunk past 1 MiB and refuses (it used to read until the machine's memory ran out).
  { input: "a document that never ends (/dev/zero)", cli: { args: () => ["import", "/dev/zero"] } },
  {
    input: "a NUL character in a title",
    rest: () => createRoute(post("/api/handoffs", { title: "a\u0000b", content: "c" })),
    mcp: { tool: "create_handoff", args: () => ({ title: "a\u0000b", content: "c" }) },
  },
  {
    input: "a NUL character in an entry's content",
    rest: () => entriesRoute(post(`/api/handoffs/${thread}/entries`, { type: "progress", content: "x\u0000y" }), params(thread)),
    mcp: { tool: "add_to_handoff", args: () => ({ id: thread, type: "progress", content: "x\u0000y" }) },
    // The seed's own handoff.json, its instruction carrying a NUL (a JSON escape decodes to one).
    cli: { args: (files) => ["import", files.write("nul.json", EXAMPLE_DOCUMENTS.handoff_json.text.replace('"handoff_instruction": "', '"handoff_instruction": "\\u0000'))] },
  },
  // Both engines would store half of a surrogate pair as U+FFFD: refused like NUL (lib/database/params.ts).
  {
    input: "half of a surrogate pair in a title and in an entry's content",
    rest: () => createRoute(post("/api/handoffs", { title: "a\ud800b", content: "c" })),
    mcp: { tool: "add_to_handoff", args: () => ({ id: thread, type: "progress", content: "x\udc00y" }) },
    cli: { args: (files) => ["import", files.write("surrogate.json", EXAMPLE_DOCUMENTS.handoff_json.text.replace('"handoff_instruction": "', '"handoff_instruction": "\\ud800'))] },
  },
  {
    input: "a body that is not UTF-8",
    rest: () =>
      createRoute(
        new Request(url("/api/handoffs"), {
          method: "POST",
          body: Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('","content":"c"}')]),
          headers: { "content-type": "application/json" },
        }),
      ),
  },
  {
    input: "prototype keys as filter names with nonsense values",
    rest: () => historyRoute(new Request(url("/api/handoffs?constructor=1&__proto__=x&toString=y&status=open"))),
  },
  {
    input: "a body whose only keys are prototype keys",
    rest: () => createRoute(post("/api/handoffs", '{"__proto__": {"title": "x", "content": "y"}, "constructor": {"prototype": 1}}')),
  },
  {
    input: "imported JSON nested 100,000 deep",
    rest: () => importRoute(post("/api/import", { text: deepArrays(100_000) })),
    action: () => previewImportAction({ text: deepArrays(100_000) }),
    cli: { args: (files) => ["import", files.write("deep.json", deepArrays(100_000))] },
  },
  {
    input: "a bundle whose schema is nested 100,000 deep",
    rest: () => importRoute(post("/api/import", { text: `{"schema": ${deepArrays(100_000)}}` })),
    cli: { args: (files) => ["import", files.write("deep-bundle.json", `{"schema": ${deepArrays(100_000)}}`)] },
  },
  {
    input: "imported YAML nested 100,000 deep (block sequences)",
    rest: () => importRoute(post("/api/import", { text: `${"- ".repeat(100_000)}x`, fileName: "handoff.yaml" })),
    action: () => importForm({ text: `${"- ".repeat(100_000)}x`, fileName: "handoff.yaml" }),
    cli: { args: (files) => ["import", files.write("deep.yaml", `${"- ".repeat(100_000)}x`)] },
  },
  {
    input: "imported YAML nested 100,000 deep (flow collections)",
    rest: () => importRoute(post("/api/import", { text: `goal: ${deepArrays(100_000)}`, format: "yaml" })),
    cli: { args: (files) => ["import", files.write("flow.yaml", `goal: ${"{a: ".repeat(100_000)}1${"}".repeat(100_000)}`)] },
  },
  // A file's bytes were read leniently: a Latin-1 handoff.yaml was imported with U+FFFD for each accented letter.
  {
    input: "a document file in Latin-1, not UTF-8",
    cli: { args: (files) => ["import", files.write("latin1.yaml", Buffer.from(EXAMPLE_DOCUMENTS.handoff_yaml.text.replace("Implement", "Impl\u00e9ment"), "latin1"))] },
  },
  {
    input: "a document file in UTF-16 (with its byte order mark)",
    cli: { args: (files) => ["import", files.write("utf16.json", Buffer.from(`\ufeff${EXAMPLE_DOCUMENTS.handoff_json.text}`, "utf16le"))] },
  },
  // A chosen format skipped detection's parse: the secrets pass walked the value first, and a
  // secret beside a list nested 200,000 deep overflowed the stack (a 500, the CLI's "unexpected error").
  ...["json", "bundle"].map((format) => {
    const text = `{"reason": "${SECRET_SAMPLES[7].value}", "deep": ${deepArrays(200_000)}}`;
    return {
      input: `imported JSON nested 200,000 deep beside a secret, its format chosen (${format})`,
      rest: () => importRoute(post("/api/import", { text, format })),
      action: () => previewImportAction({ text, format }),
      cli: { args: (files: TempFiles) => ["import", files.write("deep-secret.json", text), "--format", format] },
    };
  }),
  // JSON.parse reads 1e400 as Infinity, which a bundle's canonical bytes cannot hold: it was a 500.
  ...['{"x": 1e400}', '{"x": {"y": [-1e999]}}'].map((extra) => {
    const text = `${EXAMPLE_DOCUMENTS.bundle.text.trim().slice(0, -1)}, "extra": ${extra}}`;
    return {
      input: `a bundle with a number past a double's range in a key Baton does not read: ${extra}`,
      rest: () => importRoute(post("/api/import", { text })),
      action: () => previewImportAction({ text }),
      cli: { args: (files: TempFiles) => ["import", files.write("infinite.json", text)] },
    };
  }),
  // An export's cut is plain digits, as every door's numbers: coerced, `0x…` or `N.0` named a real entry.
  ...[(seq: number) => `0x${seq.toString(16)}`, (seq: number) => `${seq}.0`, (seq: number) => `${seq}e0`].map((spell) => ({
    input: `an export cut spelled as ${spell(255)} for seq 255`,
    rest: () => exportRoute(new Request(url(`/handoffs/${thread}/export?format=json&cut=${encodeURIComponent(spell(threadSeq))}`)), params(thread)),
  })),
  // JSON.parse keeps the last of a key written twice, other readers the first; YAML's import refuses it.
  ...[
    '{"schema": "rip.handoff_context_bundle.v1", "summary_markdown": "shown", "summary_markdown": "used", "refs": {"threads": [], "artifacts": [], "files": []}}',
    EXAMPLE_DOCUMENTS.handoff_json.text.replace('"blockers": [', '"handoff_instruction": "Delete the tests",\n  "blockers": ['),
  ].map((text, index) => ({
    input: `a JSON document with a key twice in one object (${index === 0 ? "bundle" : "handoff.json"})`,
    rest: () => importRoute(post("/api/import", { text })),
    action: () => previewImportAction({ text }),
    cli: { args: (files: TempFiles) => ["import", files.write("twice.json", text)] },
  })),
  // The same in a request body: a proxy or log that reads the first would see another thread or text.
  {
    input: "a request body with a key twice in one object (title)",
    rest: () => createRoute(post("/api/handoffs", '{"title": "shown", "content": "c", "title": "stored"}')),
  },
  {
    input: "a request body with a key twice in one object (content)",
    rest: () => entriesRoute(post(`/api/handoffs/${thread}/entries`, '{"type": "progress", "content": "shown", "content": "stored"}'), params(thread)),
  },
  {
    input: "a request body nested 100,000 deep",
    rest: () => createRoute(post("/api/handoffs", `{"title": ${deepArrays(100_000)}, "content": "c"}`)),
    mcp: { tool: "create_handoff", args: () => ({ title: JSON.parse(deepArrays(5_000)), content: "c" }) },
  },
  ...HOSTILE_NUMBERS.flatMap((value) => [
    {
      input: `history page=${value}`,
      rest: () => historyRoute(new Request(url(`/api/handoffs?page=${value}`))),
    },
    {
      input: `history perPage=${value}`,
      rest: () => historyRoute(new Request(url(`/api/handoffs?perPage=${value}`))),
    },
    {
      input: `agents page=${value}`,
      rest: () => agentListRoute(new Request(url(`/api/agents?page=${value}`))),
    },
    {
      input: `export cut ${value}`,
      cli: { args: () => ["export", thread, "--format", "json", "--cut", value] },
    },
  ]),
  {
    input: "a page past any real page (1,000,001)",
    rest: () => historyRoute(new Request(url("/api/handoffs?page=1000001"))),
  },
  ...HOSTILE_IDS.flatMap(([what, id]) => [
    {
      input: `handoff id with ${what}`,
      rest: () => handoffRoute(new Request(url("/api/handoffs/x")), params(id)),
      mcp: { tool: "get_handoff", args: () => ({ id }) },
      cli: { args: () => ["export", id, "--format", "bundle"] },
    },
    {
      input: `entry for a handoff id with ${what}`,
      rest: () => entriesRoute(post("/api/handoffs/x/entries", { type: "task", content: "x" }), params(id)),
      mcp: { tool: "add_to_handoff", args: () => ({ id, type: "task", content: "x" }) },
    },
    {
      input: `close (archive) of a handoff id with ${what}`,
      mcp: { tool: "close_handoff", args: () => ({ id, archive: true }) },
    },
    {
      input: `agent id with ${what}`,
      rest: () => agentRoute(new Request(url("/api/agents/x")), params(id)),
      mcp: { tool: "get_continuity_chain", args: () => ({ agent: id }) },
    },
    {
      input: `agent chain for an id with ${what}`,
      rest: () => chainRoute(new Request(url("/api/agents/x/chain")), params(id)),
    },
    {
      input: `artifact id with ${what}`,
      rest: () => artifactRoute(new Request(url("/api/artifacts/x")), params(id)),
      cli: { args: () => ["import", "--artifact", id] },
    },
    {
      input: `import by an artifact id with ${what}`,
      rest: () => importRoute(post("/api/import", { artifactId: id })),
      action: () => importForm({ artifactId: id }),
    },
  ]),
  ...['"a string"', "[1, 2]", "null", "42", "1e999", "true"].map((body) => ({
    input: `a JSON body that is not an object: ${body}`,
    rest: () => createRoute(post("/api/handoffs", body)),
  })),
  {
    input: "a body that is not JSON",
    rest: () => importRoute(post("/api/import", "text=hello")),
  },
  {
    input: "an unknown side ?as=robot",
    rest: () => handoffRoute(new Request(url(`/api/handoffs/${thread}?as=robot`)), params(thread)),
    mcp: { tool: "get_handoff", args: () => ({ id: thread, as_client: "robot" }) },
  },
  {
    input: "context percent 1e308",
    rest: () => agentPatchRoute(post(`/api/agents/${agent}`, { contextPercent: 1e308 }, "PATCH"), params(String(agent))),
    mcp: { tool: "report_context", args: () => ({ agent, percent: 1e308 }) },
  },
  {
    input: 'context percent "NaN"',
    rest: () => agentPatchRoute(post(`/api/agents/${agent}`, { contextPercent: "NaN" }, "PATCH"), params(String(agent))),
    mcp: { tool: "report_context", args: () => ({ agent, percent: "NaN" }) },
  },
  {
    input: "an agent id 1e308",
    rest: () => agentRoute(new Request(url("/api/agents/1e308")), params("1e308")),
    mcp: { tool: "get_continuity_chain", args: () => ({ agent: 1e308 }) },
  },
  {
    input: "an agent id -1",
    rest: () => chainRoute(new Request(url("/api/agents/-1/chain")), params("-1")),
    mcp: { tool: "get_continuity_chain", args: () => ({ agent: -1 }) },
  },
  {
    input: "after_seq 1e308",
    rest: () => handoffRoute(new Request(url(`/api/handoffs/${thread}?after_seq=1e308`)), params(thread)),
    mcp: { tool: "get_handoff", args: () => ({ id: thread, after_seq: 1e308 }) },
  },
  {
    input: "unicode in a project name",
    rest: () => createRoute(post("/api/handoffs", { title: "t", content: "c", project: "проект😀" })),
    action: () => importForm({ text: "goal: Ship\nstatus: in_progress\nnow: Fix it\n", project: "проект😀" }),
    mcp: { tool: "create_handoff", args: () => ({ title: "t", content: "c", project: "项目" }) },
    cli: { args: (files) => ["import", files.write("ok.yaml", "goal: Ship\nstatus: in_progress\nnow: Fix it\n"), "--project", "projé\u0301t"] },
  },
  {
    input: "unicode in an agent's project and persona",
    rest: () => agentCreateRoute(post("/api/agents", { personaSlug: "dév", project: "プロジェクト" })),
    mcp: { tool: "register_agent", args: () => ({ persona: "dév", project: "プロジェクト" }) },
  },
  {
    input: "a file name with ../ and NUL",
    rest: () => importRoute(post("/api/import", { text: "{}", fileName: `../../${"\u0000".repeat(300)}` })),
  },
];

type Counts = Record<string, number>;

/** Rows of every table a door could write, and the blobs on disk. */
async function counts(): Promise<Counts> {
  const blobs = path.join(dataDir(), "artifacts", "blobs");
  return {
    handoffs: await countRows("handoffs"),
    entries: await countRows("handoff_entries"),
    agents: await countRows("agents"),
    handoffRecords: await countRows("handoff_records"),
    sources: await countRows("handoff_sources"),
    artifacts: await countRows("artifacts"),
    blobs: fs.existsSync(blobs) ? fs.readdirSync(blobs).length : 0,
  };
}

const temporary: string[] = [];
const tempFiles = (): TempFiles => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "baton-hostile-"));
  temporary.push(dir);
  return {
    write: (name, content) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, content);
      return file;
    },
  };
};

let mcp: Awaited<ReturnType<typeof connectInProcessClient>>;
const errorLog = vi.spyOn(console, "error");

beforeAll(async () => {
  const fixture = await createHandoff({ title: "Hostile fixture", content: "first" });
  thread = fixture.handoff.id;
  threadSeq = fixture.entries[0].seq;
  agent = (await registerAgent({ personaSlug: "fixture" })).id;
  mcp = await connectInProcessClient();
  api = await serveApi();
});

afterAll(async () => {
  await mcp?.close();
  await api?.close();
  for (const dir of temporary) fs.rmSync(dir, { recursive: true, force: true });
});

describe("hostile input through REST: a 4xx with a message, nothing stored", () => {
  it.each(HOSTILE.filter((row) => row.rest).map((row) => [row.input, row] as const))("%s", async (_input, row) => {
    const before = await counts();
    const response = await row.rest!();
    const body = await response.json();
    expect(response.status, JSON.stringify(body).slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(body.error.message).toEqual(expect.any(String));
    expect(body.error.message.length).toBeGreaterThan(10);
    // A message quotes at most a short piece of what was sent, never the 100,000 characters.
    expect(body.error.message.length).toBeLessThan(2_000);
    expect(Object.values(body.error.fieldErrors ?? {}).flat().join("\n")).not.toMatch(CONTROL);
    expect(body.error.message).not.toMatch(CONTROL);
    expect(await counts()).toEqual(before);
    expect(errorLog).not.toHaveBeenCalled();
  });
});

describe("hostile input through the import form's server actions: refused with a message, nothing stored", () => {
  it.each(HOSTILE.filter((row) => row.action).map((row) => [row.input, row] as const))("%s", async (_input, row) => {
    const before = await counts();
    const answer = await row.action!();
    expect(answer.status === "error" || answer.ok === false, JSON.stringify(answer).slice(0, 300)).toBe(true);
    expect(answer.message?.length).toBeGreaterThan(10);
    expect(answer.message).not.toMatch(CONTROL);
    expect(await counts()).toEqual(before);
    expect(errorLog).not.toHaveBeenCalled();
  });
});

describe("hostile input through MCP tools: a tool error with a message, nothing stored", () => {
  it.each(HOSTILE.filter((row) => row.mcp).map((row) => [row.input, row] as const))("%s", async (_input, row) => {
    const before = await counts();
    let text: string;
    try {
      const result = await mcp.client.callTool({ name: row.mcp!.tool, arguments: row.mcp!.args() });
      expect(result.isError, JSON.stringify(result.structuredContent)?.slice(0, 300)).toBe(true);
      text = (result.content as { type: string; text: string }[])[0].text;
    } catch (error) {
      // The SDK may refuse arguments its schema rejects as a JSON-RPC error: still the caller's.
      text = (error as Error).message;
      expect(text).toMatch(/Invalid|MCP error -32602/);
    }
    expect(text.length).toBeGreaterThan(10);
    expect(text.length).toBeLessThan(2_000);
    expect(text).not.toMatch(/could not finish|internal error/i);
    expect(text).not.toMatch(CONTROL);
    expect(mcp.logs).toEqual([]);
    expect(await counts()).toEqual(before);
  });
});

describe("hostile input through the CLI: a non-zero exit with a message, nothing stored", () => {
  it.each(HOSTILE.filter((row) => row.cli).map((row) => [row.input, row] as const))("%s", async (_input, row) => {
    const args = row.cli!.args(tempFiles());
    const before = await counts();
    const written: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    let code: number;
    try {
      code = await cli(args);
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
    }
    const message = written.join("");
    expect(code, message.slice(0, 300)).toBeGreaterThan(0);
    expect(message).toMatch(/baton( \w+)?: /);
    // The refusal names what is wrong; an "unexpected error" is Baton's own failure.
    expect(message).not.toMatch(/unexpected error/);
    expect(message.length).toBeLessThan(4_000);
    expect(message).not.toMatch(CONTROL);
    expect(await counts()).toEqual(before);
  });
});

describe("the dashboard's Markdown nested thousands deep", () => {
  it.each([
    ["block quotes", `${"> ".repeat(5_000)}x`],
    ["lists", `${"- ".repeat(5_000)}x`],
    ["indented lists", Array.from({ length: 3_000 }, (_, level) => `${" ".repeat(level * 2)}- x`).join("\n")],
    ["emphasis", `${"*".repeat(10_000)}x${"*".repeat(10_000)}`],
    ["alternating emphasis", `${"*a _b ".repeat(2_500)}x${"_ b* a".repeat(2_500)}`],
    ["brackets", `${"[".repeat(10_000)}x${"](u)".repeat(10_000)}`],
  ])("shows %s as plain text, quickly", (_what, text) => {
    const started = performance.now();
    const html = renderToString(Markdown({ children: text }));
    expect(html).toContain('data-plain-text="too-deep"');
    // Not a speed target: a bound far above the milliseconds this takes, far below the minute the parser would.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("still formats ordinary Markdown, nested lists and long code included", () => {
    const text = `# Plan\n\n**Bold**, _it_ and snake_case_name.\n\n- a\n  - b\n    - c\n\n> quote\n\n\`\`\`\n${" ".repeat(200)}code\n\`\`\`\n\n***`;
    const html = renderToString(Markdown({ children: text }));
    expect(html).not.toContain("too-deep");
    expect(html).toContain("<strong>Bold</strong>");
    expect(html).toContain("<blockquote>");
  });
});

describe("properties", () => {
  it("a format name is a known format or an Invalid, whatever the string", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom(...PROTOTYPE_KEYS, "valueOf", "__defineGetter__", "isPrototypeOf")), (name) => {
        try {
          expect(["bundle", "handoff_json", "handoff_yaml"]).toContain(formatNamed(name));
        } catch (error) {
          expect(error).toBeInstanceOf(Invalid);
        }
      }),
    );
  });

  it("any page or page size string gives a page or an Invalid, never another error", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.constantFrom(...HOSTILE_NUMBERS, "1000000", "1000001", "0", " 7 ")), async (page) => {
        try {
          const found = await findHandoffs({ page, perPage: page });
          expect(found.page).toBeGreaterThanOrEqual(1);
        } catch (error) {
          expect(error).toBeInstanceOf(Invalid);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("the JSON nesting scan agrees with the parsed value's depth", () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(fc.string(), tie("node"), { maxKeys: 3 })),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 6 }), (parsed, limit) => {
        const text = JSON.stringify(parsed);
        expect(jsonTooDeep(text, limit) !== null).toBe(valueTooDeep(JSON.parse(text), limit));
      }),
      { numRuns: 300 },
    );
    expect(jsonTooDeep(deepArrays(MAX_NESTING))).toBeNull();
    expect(jsonTooDeep(deepArrays(MAX_NESTING + 1))).toEqual({ line: 1, column: MAX_NESTING + 1 });
  });
});
