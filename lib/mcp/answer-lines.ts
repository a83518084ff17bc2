import "server-only";
import { randomUUID } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * A tool's answer goes out twice, structured and in a text block (tool-kit.ts), and its JSON is
 * made once there: a message carrying an answer sends the structure as that JSON, instead of
 * serializing it a second time. For a 300-entry thread this is most of what sending the answer
 * costs in the server. The SDK checks each answer against its schema on the way out, which copies
 * the structure but not what it holds: the text block, a string, finds the answers it may be, and
 * the structure's values, the same ones, tell them apart (a transcript says nothing of the other
 * side's cursor, so two answers in flight may share a text).
 */
type Unsent = { json: string; values: unknown[] };
const unsent = new Map<string, Unsent[]>();
/** Answers made but never sent (a call that failed after its tool ran) are forgotten past this many texts. */
const MAX_UNSENT = 64;
/** Only a process serving stdio sends answers as lines; the HTTP door's answers are never looked up, so none is kept. */
let serving = false;

/** Called by the stdio transport: from now on answers are kept until sent. */
export function keepAnswersForLines(): void {
  serving = true;
}

/**
 * Records that the answer of `structure` with the text block `text` is sent with `jsonOf()`,
 * exactly `JSON.stringify(structure)`: made only here, where it is sent so.
 */
export function rememberSerialized(text: string, structure: Record<string, unknown>, jsonOf: () => string): void {
  if (!serving) return;
  const answers = unsent.get(text) ?? [];
  answers.push({ json: jsonOf(), values: Object.values(structure) });
  if (answers.length > MAX_UNSENT) answers.shift();
  unsent.set(text, answers);
  if (unsent.size > MAX_UNSENT) unsent.delete(unsent.keys().next().value as string);
}

/** The JSON kept for the answer sent with `text` and `structure`, forgotten as it is taken. */
function takeSerialized(text: string, structure: object): string | undefined {
  const answers = unsent.get(text);
  const values = Object.values(structure);
  const index = answers?.findIndex((answer) => answer.values.length === values.length && answer.values.every((value, at) => value === values[at])) ?? -1;
  if (index < 0) return undefined;
  const [{ json }] = answers!.splice(index, 1);
  if (answers!.length === 0) unsent.delete(text);
  return json;
}

type ToolResult = { structuredContent?: unknown; content?: unknown };
const isText = (block: unknown): block is { type: "text"; text: string } =>
  typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" && typeof (block as { text?: unknown }).text === "string";

/**
 * A JSON-RPC message as one line of JSON, in pieces whose concatenation is the line: a tool
 * answer's structure is spliced in as its text block already holds it, between the envelope's
 * head and its closing braces. The pieces are handed to one writev rather than joined:
 * a string or buffer over 128 KB (V8's large-object size, glibc's mmap threshold) is made in
 * fresh pages, and a 300-entry thread's answer is 144 KB. Measured on the bench machine, a
 * 136 KB line cost its writer about 1 ms more before the first byte than its three pieces did.
 */
export function messagePieces(message: JSONRPCMessage): (string | Buffer)[] {
  const result = "result" in message ? (message.result as ToolResult) : undefined;
  const blocks = result?.structuredContent !== undefined && Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const text = blocks.find((block): block is { type: "text"; text: string } => isText(block) && unsent.has(block.text))?.text;
  const json = text === undefined ? undefined : takeSerialized(text, result!.structuredContent as object);
  if (text === undefined || json === undefined) return [`${JSON.stringify(message)}\n`];
  const { structuredContent: _spliced, ...rest } = result!;
  const { result: _result, ...envelope } = message as { result: unknown };
  // The text block's JSON string is spliced in as well (encodedAnswer).
  const around = JSON.stringify(rest, (_key, value: unknown) => (value === text ? TEXT_MARK : value)).split(MARKED_TEXT);
  if (around.length !== 2) return [`${JSON.stringify(message)}\n`];
  const encoded = encodedAnswer(text, json);
  // The envelope has `jsonrpc` and `id`, the rest of the result its `content`: neither is `{}`.
  return [`${JSON.stringify(envelope).slice(0, -1)},"result":${around[0]}`, encoded.text, `${around[1].slice(0, -1)},"structuredContent":`, encoded.json, "}}\n"];
}

/** Stands for the text block while the rest of the result is serialized; no answer holds it (random per process). */
const TEXT_MARK = `baton-answer-text-${randomUUID()}`;
const MARKED_TEXT = JSON.stringify(TEXT_MARK);

/**
 * An answer's text block as the bytes of a JSON string, and its structure's JSON as bytes:
 * escaping a 300-entry thread's 70 KB took longer than the rest of the line, and a string piece is
 * encoded into a fresh buffer at every write. A thread read again unchanged is the same answer
 * (lib/handoffs' remembered reads), so the last few are kept.
 */
const MAX_ENCODED = 8;
const encodedAnswers = new LRUCache<string, { of: string; text: Buffer; json: Buffer }>({ max: MAX_ENCODED });

function encodedAnswer(text: string, json: string): { text: Buffer; json: Buffer } {
  let encoded = encodedAnswers.get(text);
  // The same text with another structure (two answers may share a text, see unsent) is encoded anew.
  if (encoded === undefined || encoded.of !== json) {
    encoded = { of: json, text: Buffer.from(JSON.stringify(text)), json: Buffer.from(json) };
    encodedAnswers.set(text, encoded);
  }
  return encoded;
}
