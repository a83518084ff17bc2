import { beforeAll, describe, expect, it } from "vitest";
import { MAX_AGENTS_PER_PAGE } from "../lib/agents/find-agents";
import { apiServerForFile } from "./support/api-server";
import { connectHttpClient } from "./support/mcp-clients";
import { fillMaxLengthChain } from "./support/max-length-chain";

/** The acceptance bound for one answer: a REST body, an MCP tool result. */
const ANSWER_LIMIT_BYTES = 256 * 1024;
const bytes = (text: string) => Buffer.byteLength(text, "utf8");

const api = apiServerForFile();

const AGENTS = 260;

describe("the agent list at maximum field lengths", () => {
  beforeAll(async () => {
    await fillMaxLengthChain(AGENTS);
  });

  it(`answers its largest page (perPage=${MAX_AGENTS_PER_PAGE}) well under 256 KiB`, async () => {
    const response = await api.fetch(`/api/agents?perPage=${MAX_AGENTS_PER_PAGE}`);
    const text = await response.text();
    expect(response.status, text.slice(0, 300)).toBe(200);
    const page = JSON.parse(text) as { items: unknown[]; perPage: number };
    expect(page.items).toHaveLength(MAX_AGENTS_PER_PAGE);
    console.log(`GET /api/agents?perPage=${MAX_AGENTS_PER_PAGE} at maximum field lengths: ${bytes(text)} bytes`);
    // Room for a data folder path longer than this test's.
    expect(bytes(text)).toBeLessThan(ANSWER_LIMIT_BYTES * 0.75);
  });

  it("refuses a larger page with a 400 that says the largest, as it refuses page 0; nothing over the bound is sent", async () => {
    for (const perPage of [MAX_AGENTS_PER_PAGE + 1, 200]) {
      const response = await api.fetch(`/api/agents?perPage=${perPage}`);
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { message: string } };
      expect(error.message).toContain(`perPage must be a whole number from 1 to ${MAX_AGENTS_PER_PAGE}`);
    }
  });

  it("q finds the few agents whose name, persona or session id holds it, for the command palette; % and _ are matched as themselves", async () => {
    const registered = [
      { personaSlug: "palette-finder", name: "Night Owl 100%" },
      { personaSlug: "palette-other", name: "Night_Shift" },
    ];
    const ids: { id: number; shortId: string }[] = [];
    for (const agent of registered) {
      const response = await api.fetch("/api/agents", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(agent) });
      ids.push((await response.json()) as { id: number; shortId: string });
    }
    const found = async (q: string) =>
      ((await (await api.fetch(`/api/agents?${new URLSearchParams({ q, perPage: "5" })}`)).json()) as { items: { id: number }[] }).items.map((item) => item.id).sort();
    expect(await found("night")).toEqual(ids.map((agent) => agent.id).sort());
    expect(await found("OWL 100%")).toEqual([ids[0].id]);
    expect(await found("t_s")).toEqual([ids[1].id]);
    expect(await found("palette-fin")).toEqual([ids[0].id]);
    expect(await found(ids[1].shortId)).toEqual([ids[1].id]);
    expect(await found("0%0")).toEqual([]);
    const tooLong = await api.fetch(`/api/agents?q=${"x".repeat(101)}`);
    expect(tooLong.status).toBe(400);
  });

  it("q matches a name's letters in any case beyond ASCII (SQLite's own LOWER folds ASCII only)", async () => {
    const response = await api.fetch("/api/agents", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ personaSlug: "palette-accents", name: "Équipe Ærø Straße" }) });
    const { id } = (await response.json()) as { id: number };
    const found = async (q: string) =>
      ((await (await api.fetch(`/api/agents?${new URLSearchParams({ q, perPage: "5" })}`)).json()) as { items: { id: number }[] }).items.map((item) => item.id);
    for (const q of ["équipe", "ÉQUIPE", "ærø", "ÆRØ", "straße"]) expect(await found(q), q).toEqual([id]);
  });

  it("the MCP tool that lists agents (get_continuity_chain, 41 agents at most) stays under 256 KiB, structured and text", async () => {
    const client = await connectHttpClient(`${api.origin}/api/mcp`);
    try {
      const middle = (await (await api.fetch(`/api/agents?perPage=1&page=${Math.floor(AGENTS / 2)}`)).json()) as { items: { id: number }[] };
      const result = await client.callTool({ name: "get_continuity_chain", arguments: { agent: middle.items[0].id } });
      expect(result.isError ?? false).toBe(false);
      const text = (result.content as { type: string; text: string }[])[0].text;
      const size = bytes(JSON.stringify(result));
      console.log(`get_continuity_chain at maximum field lengths: ${size} bytes (text block ${bytes(text)})`);
      expect(size).toBeLessThan(ANSWER_LIMIT_BYTES);
    } finally {
      await client.close();
    }
  });
});
