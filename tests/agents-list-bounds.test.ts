import { randomUUID } from "node:crypto";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { dataDir } from "../lib/config";
import { storedDate, write } from "../lib/database";
import { injectionPromptFor } from "../lib/agents/trigger-handoff";
import { MAX_AGENTS_PER_PAGE } from "../lib/agents/find-agents";
import { apiServerForFile } from "./support/api-server";
import { connectHttpClient } from "./support/mcp-clients";

/** The acceptance bound for one answer: a REST body, an MCP tool result. */
const ANSWER_LIMIT_BYTES = 256 * 1024;
const bytes = (text: string) => Buffer.byteLength(text, "utf8");

const api = apiServerForFile();

// Every field at its longest, in the characters that weigh most as JSON: a name of 100 three-byte
// characters, a 64-character persona, a 40-character project, the longest tmux target, and a
// handoff record on every agent whose delivery failed with the longest reason the bridge gives.
const PERSONA = `p${"x".repeat(62)}9`;
const NAME = "名".repeat(100);
const PROJECT = `q${"y".repeat(39)}`;
const TARGET = `${"s".repeat(64)}:${"w".repeat(64)}.9999`;
const HELD = "a dialog is open (a yes/no question)";
const DELIVERY = `failed: the pane ${JSON.stringify(TARGET)} did not come to rest within 15 s (${HELD}); nothing was typed: retry once it is free`;
const AGENTS = 260;

/** A chain of AGENTS agents at maximum field lengths, each but the last handed off to the next. */
async function fillChain(): Promise<void> {
  const at = storedDate(new Date(Date.now() - 3_600_000));
  await write(async (tx) => {
    let previous: number | null = null;
    for (let index = 0; index < AGENTS; index++) {
      const sessionId = randomUUID();
      const last = index === AGENTS - 1;
      const agent: { id: number } | undefined = await tx.get<{ id: number }>(
        `INSERT INTO agents (session_id, persona_slug, name, project, status, tmux_target, context_percent, previous_agent_id, started_at, ended_at)
         VALUES (?, ?, ?, ?, ?, ?, 100, ?, ?, ?) RETURNING id`,
        [sessionId, PERSONA, NAME, PROJECT, last ? "active" : "ended", TARGET, previous, at, last ? null : at],
      );
      if (!last) {
        const shortId = sessionId.slice(0, 8);
        const relative = `personas/${PERSONA}/handoffs/20261129T101500-${shortId}-9f8e7d6c.md`;
        await tx.run(
          `INSERT INTO handoff_records (agent_id, reason, file_path, document, injection_prompt, delivery, delivery_state, created_at, typed_at, delivery_attempts)
           VALUES (?, 'context_limit', ?, '## Goal', ?, ?, 'failed', ?, ?, 99)`,
          [agent!.id, relative, injectionPromptFor(shortId, agent!.id, path.join(dataDir(), relative), PERSONA), DELIVERY, at, at],
        );
      }
      previous = agent!.id;
    }
  });
}

describe("the agent list at maximum field lengths", () => {
  beforeAll(fillChain);

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
