import fs from "node:fs";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectStdioClient } from "./support/mcp-clients";
import { fillMaxLengthChain } from "./support/max-length-chain";

/**
 * get_continuity_chain at maximum field lengths, with a data folder whose path is over 600
 * characters (each record's injection prompt names its document's absolute path), through the
 * real `baton mcp` over stdio. The page's window (20 a side) answered past 256 KiB here, its text
 * block past the 110 KB Claude Code is thought to cut tool output at.
 */
const ANSWER_LIMIT_BYTES = 256 * 1024;
const TEXT_LIMIT_BYTES = 110_000;
const AGENTS = 260;
const bytes = (text: string) => Buffer.byteLength(text, "utf8");

type Node = { id: number };
type Chain = { agent_id: number; predecessors: Node[]; agent: Node; successors: Node[]; length: number; earlier: number; first: Node | null; later: number; last: Node | null; truncated: boolean; hint: string | null };

const longDataDir = path.join(process.env.BATON_DATA_DIR!, ...["d", "e", "f"].map((letter) => `${letter}${"-long-data-folder".repeat(12)}`));
let ids: number[] = [];
let client: Client;

beforeAll(async () => {
  fs.mkdirSync(longDataDir, { recursive: true });
  process.env.BATON_DATA_DIR = longDataDir;
  ids = await fillMaxLengthChain(AGENTS);
  client = (await connectStdioClient()).client;
});
afterAll(async () => {
  await client?.close();
});

/** One call, checked against the bounds: the whole result under 256 KiB, its text block under 110 KB, the text the structured answer. */
async function chainOf(agent: number): Promise<Chain> {
  const result = await client.callTool({ name: "get_continuity_chain", arguments: { agent } });
  const text = (result.content as { type: string; text: string }[])[0].text;
  expect(result.isError ?? false, text).toBe(false);
  expect(bytes(JSON.stringify(result))).toBeLessThan(ANSWER_LIMIT_BYTES);
  expect(bytes(text)).toBeLessThan(TEXT_LIMIT_BYTES);
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent as Chain;
}

/** The agent the hint says to ask for to see the `side` ones left out. */
function askNext(chain: Chain, side: "earlier" | "later"): number {
  const found = chain.hint?.match(new RegExp(`${chain[side]} ${side} agents?: call get_continuity_chain with agent (\\d+)`));
  expect(found, chain.hint ?? "no hint").not.toBeNull();
  return Number(found![1]);
}

describe("get_continuity_chain over stdio at maximum field lengths and a long data folder path", () => {
  it("answers under the bounds, says what it left out, and its hints lead through the whole chain", async () => {
    expect(longDataDir.length).toBeGreaterThan(600);
    const middle = ids[AGENTS / 2];
    const answer = await chainOf(middle);
    expect(answer.length).toBe(AGENTS);
    expect(answer.truncated).toBe(true);
    expect(answer.predecessors.length).toBeGreaterThan(5);
    expect(answer.successors.length).toBeGreaterThan(5);
    expect(answer.earlier + answer.predecessors.length).toBe(AGENTS / 2);
    expect(answer.later + answer.successors.length).toBe(AGENTS / 2 - 1);
    expect(answer.first?.id).toBe(ids[0]);
    expect(answer.last?.id).toBe(ids[AGENTS - 1]);
    // Each side unbroken, nearest first.
    expect(answer.predecessors.map((node) => node.id)).toEqual(ids.slice(AGENTS / 2 - answer.predecessors.length, AGENTS / 2));
    expect(answer.successors.map((node) => node.id)).toEqual(ids.slice(AGENTS / 2 + 1, AGENTS / 2 + 1 + answer.successors.length));

    // Back to the first agent, as the hints say.
    let seen = [...answer.predecessors.map((node) => node.id), middle];
    for (let step = answer; step.earlier > 0; ) {
      const asked = askNext(step, "earlier");
      expect(asked).toBe(step.predecessors[0].id);
      step = await chainOf(asked);
      expect(step.agent_id).toBe(asked);
      seen = [...step.predecessors.map((node) => node.id), ...seen];
    }
    // On to the last.
    seen.push(...answer.successors.map((node) => node.id));
    for (let step = answer; step.later > 0; ) {
      const asked = askNext(step, "later");
      expect(asked).toBe(step.successors.at(-1)!.id);
      step = await chainOf(asked);
      seen.push(...step.successors.map((node) => node.id));
    }
    expect(seen).toEqual(ids);
  });

  it("a chain short enough is listed whole: truncated false, no hint", async () => {
    const [first, second] = await fillMaxLengthChain(3);
    const answer = await chainOf(second);
    expect(answer).toMatchObject({ length: 3, earlier: 0, later: 0, first: null, last: null, truncated: false, hint: null });
    expect(answer.predecessors.map((node) => node.id)).toEqual([first]);
    expect(answer.successors).toHaveLength(1);
  });
});
