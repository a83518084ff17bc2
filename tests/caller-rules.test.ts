import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countRows } from "./support/rows";
import { createToken, signIn } from "../lib/auth";
import { approveAuthorization } from "../lib/oauth";
import { serveApi, type ApiServer } from "./support/api-server";
import { connectHttpClient, connectStdioClient } from "./support/mcp-clients";

/**
 * Caller rules applied by construction (issue 30, point 4). A folder an operation reads is parsed
 * with lib/caller.ts's namedFolderSchema, which holds the local-caller rule, so an operation that
 * takes a folder any other way fails here. The side a call counts as when it names none is one
 * function (defaultSideOf), and every door gives each caller kind the same side.
 */
const root = path.resolve(import.meta.dirname, "..");

function libSources(): string[] {
  return fs
    .readdirSync(path.join(root, "lib"), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe("caller rules in the schemas", () => {
  it("no operation parses a folder without the local-caller rule, nor a side without the caller's default", () => {
    const strays: string[] = [];
    for (const file of libSources()) {
      const name = path.relative(root, file);
      const text = fs.readFileSync(file, "utf8");
      if (name !== "lib/git/types.ts" && name !== "lib/caller.ts" && /\brepoPathSchema\b/.test(text)) strays.push(`${name} parses a folder with repoPathSchema; use namedFolderSchema (lib/caller.ts)`);
      // A call's side (asClient); a consent page's act_as chooses a grant's side, not a call's.
      if (/\basClient:\s*clientSideSchema\b/.test(text)) strays.push(`${name} parses a call's side itself; use asClientSchema (lib/caller.ts)`);
    }
    expect(strays).toEqual([]);
  });
});

describe("the default side, through every door, for every caller kind", () => {
  let api: ApiServer;
  beforeAll(async () => {
    api = await serveApi();
  });
  afterAll(() => api.close());

  /** REST: the side of a new handoff's first entry when the body names none. */
  async function restSide(headers: Record<string, string>): Promise<string> {
    const response = await api.fetch("/api/handoffs", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ title: "side", content: "which side?" }) });
    expect(response.status).toBe(201);
    return ((await response.json()) as { entries: { fromClient: string }[] }).entries[0].fromClient;
  }

  /** MCP over HTTP: the same, through create_handoff without as_client. */
  async function mcpHttpSide(headers: Record<string, string>, query = ""): Promise<string> {
    const client = await connectHttpClient(`${api.origin}/api/mcp${query}`, headers);
    try {
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "side", content: "which side?" } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
      return (created.structuredContent as { entries: { from_client: string }[] }).entries[0].from_client;
    } finally {
      await client.close();
    }
  }

  async function connectorToken(actAs: "chat" | "code"): Promise<string> {
    const redirectUri = "https://claude.ai/api/mcp/auth_callback";
    const resource = `${api.origin}/api/mcp`;
    const registered = await api.fetch("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Claude", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const params = { client_id: clientId, redirect_uri: redirectUri, response_type: "code", code_challenge: challenge, code_challenge_method: "S256", resource, state: "s" };
    const code = new URL(await approveAuthorization({ ...params, act_as: actAs }, resource)).searchParams.get("code")!;
    const exchanged = await api.fetch("/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri, resource }),
    });
    return ((await exchanged.json()) as { access_token: string }).access_token;
  }

  it("the desk, a session, an operator and an agent token: chat on REST and MCP over HTTP; ?as=code makes it code", async () => {
    const operator = (await createToken({ name: "side-operator", role: "operator" })).token;
    const agent = (await createToken({ name: "side-agent", role: "agent" })).token;
    const session = (await signIn({ token: operator })).sessionId;
    const kinds: Record<string, Record<string, string>> = {
      desk: {},
      session: { cookie: `baton_session=${session}` },
      operator: { authorization: `Bearer ${operator}` },
      agent: { authorization: `Bearer ${agent}` },
    };
    for (const [kind, headers] of Object.entries(kinds)) {
      expect([kind, await restSide(headers), await mcpHttpSide(headers)]).toEqual([kind, "chat", "chat"]);
      expect([kind, await mcpHttpSide(headers, "?as=code")]).toEqual([kind, "code"]);
    }
  });

  it("a connector gets the side it was approved for on every door, REST included", async () => {
    for (const side of ["code", "chat"] as const) {
      const bearer = { authorization: `Bearer ${await connectorToken(side)}` };
      expect([await restSide(bearer), await mcpHttpSide(bearer), await mcpHttpSide(bearer, `?as=${side}`)]).toEqual([side, side, side]);
    }
  });

  it("a connector cannot act as the side it was not approved for: as_client, asClient and ?as= naming it are refused, and nothing is stored", async () => {
    const bearer = { authorization: `Bearer ${await connectorToken("code")}` };
    const before = await countRows("handoffs");
    const rest = await api.fetch("/api/handoffs", { method: "POST", headers: { ...bearer, "content-type": "application/json" }, body: JSON.stringify({ title: "side", content: "as chat?", asClient: "chat" }) });
    expect(rest.status).toBe(403);
    expect(((await rest.json()) as { error: { message: string } }).error.message).toMatch(/approved to act as code, not chat/);
    const client = await connectHttpClient(`${api.origin}/api/mcp`, bearer);
    try {
      const created = await client.callTool({ name: "create_handoff", arguments: { title: "side", content: "as chat?", as_client: "chat" } });
      expect(created.isError).toBe(true);
      expect((created.content as { text: string }[])[0].text).toMatch(/approved to act as code, not chat/);
    } finally {
      await client.close();
    }
    const sided = await api.fetch("/api/mcp?as=chat", { method: "POST", headers: { ...bearer, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(sided.status).toBe(403);
    expect(await countRows("handoffs")).toBe(before);
  });

  it("this machine's process (stdio): chat, and code with --as code", async () => {
    for (const [args, side] of [
      [[], "chat"],
      [["--as", "code"], "code"],
    ] as const) {
      const { client } = await connectStdioClient({ args: [...args] });
      try {
        const created = await client.callTool({ name: "create_handoff", arguments: { title: "side", content: "which side?" } });
        expect((created.structuredContent as { entries: { from_client: string }[] }).entries[0].from_client).toBe(side);
      } finally {
        await client.close();
      }
    }
  });
});
