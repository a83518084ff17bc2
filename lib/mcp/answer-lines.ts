import "server-only";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * A tool's answer goes out twice, structured and as its JSON in a text block (tool-kit.ts): the
 * JSON is made once there, and a message carrying that structure reuses it here instead of
 * serializing the structure a second time (for a 300-entry thread, a third of the time an answer
 * costs). Keyed by the structure itself, so nothing outlives the answer.
 */
const serializedStructures = new WeakMap<object, string>();

/** Records that `json` is exactly `JSON.stringify(structure)`. */
export function rememberSerialized(structure: object, json: string): void {
  serializedStructures.set(structure, json);
}

/** A JSON-RPC message as one line of JSON, with a tool answer's structure spliced in as already serialized. */
export function messageLine(message: JSONRPCMessage): string {
  const result = "result" in message ? (message.result as { structuredContent?: unknown }) : undefined;
  const structure = result?.structuredContent;
  const json = structure !== null && typeof structure === "object" ? serializedStructures.get(structure) : undefined;
  if (json === undefined) return `${JSON.stringify(message)}\n`;
  const { structuredContent: _spliced, ...rest } = result!;
  // {"jsonrpc":…,"id":…,"result":{…rest}}: the structure goes in before the last two braces.
  const head = JSON.stringify({ ...message, result: rest });
  return `${head.slice(0, -2)}${Object.keys(rest).length ? "," : ""}"structuredContent":${json}}}\n`;
}

/** The SDK's stdio transport, writing each message as messageLine makes it. */
export class StdioAnswerTransport extends StdioServerTransport {
  override send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (process.stdout.write(messageLine(message))) resolve();
      else process.stdout.once("drain", resolve);
    });
  }
}
