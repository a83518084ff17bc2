import "server-only";
import { randomUUID } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * A tool's answer goes out twice, structured and as its JSON in a text block (tool-kit.ts). The
 * JSON is made once there; a message whose text block is such a JSON sends it as the structure
 * too, instead of serializing the structure a second time (the SDK checks each answer against
 * its schema on the way out, which copies the structure, so the text, a string it passes on as
 * it is, is what identifies the answer). For a 300-entry thread this is most of what sending the
 * answer costs in the server.
 */
const unsent = new Set<string>();
/** Answers made but never sent (a call that failed after its tool ran) are forgotten past this many. */
const MAX_UNSENT = 64;
/** Only a process serving stdio sends answers as lines; the HTTP door's answers are never looked up, so none is kept. */
let serving = false;

/** Called by the stdio transport: from now on answers are kept until sent. */
export function keepAnswersForLines(): void {
  serving = true;
}

/** Records that `json` is exactly `JSON.stringify` of the structure it will be sent with. */
export function rememberSerialized(json: string): void {
  if (!serving) return;
  unsent.add(json);
  if (unsent.size > MAX_UNSENT) unsent.delete(unsent.values().next().value as string);
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
  const json = blocks.find((block): block is { type: "text"; text: string } => isText(block) && unsent.has(block.text))?.text;
  if (json === undefined) return [`${JSON.stringify(message)}\n`];
  unsent.delete(json);
  const { structuredContent: _spliced, ...rest } = result!;
  const { result: _result, ...envelope } = message as { result: unknown };
  // The text block's JSON string is spliced in as well (encodedAnswer).
  const around = JSON.stringify(rest, (_key, value: unknown) => (value === json ? TEXT_MARK : value)).split(MARKED_TEXT);
  if (around.length !== 2) return [`${JSON.stringify(message)}\n`];
  const encoded = encodedAnswer(json);
  // The envelope has `jsonrpc` and `id`, the rest of the result its `content`: neither is `{}`.
  return [`${JSON.stringify(envelope).slice(0, -1)},"result":${around[0]}`, encoded.text, `${around[1].slice(0, -1)},"structuredContent":`, encoded.json, "}}\n"];
}

/** Stands for the text block while the rest of the result is serialized; no answer holds it (random per process). */
const TEXT_MARK = `baton-answer-text-${randomUUID()}`;
const MARKED_TEXT = JSON.stringify(TEXT_MARK);

/**
 * An answer's JSON as the bytes of its text block (a JSON string) and of its structure: escaping a
 * 300-entry thread's 70 KB took longer than the rest of the line, and a string piece is encoded
 * into a fresh buffer at every write. A thread read again unchanged is the same answer
 * (lib/handoffs' remembered reads), so the last few are kept.
 */
const MAX_ENCODED = 8;
const encodedAnswers = new LRUCache<string, { text: Buffer; json: Buffer }>({ max: MAX_ENCODED });

function encodedAnswer(json: string): { text: Buffer; json: Buffer } {
  let encoded = encodedAnswers.get(json);
  if (encoded === undefined) {
    encoded = { text: Buffer.from(JSON.stringify(json)), json: Buffer.from(json) };
    encodedAnswers.set(json, encoded);
  }
  return encoded;
}
