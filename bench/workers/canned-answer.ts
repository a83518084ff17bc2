/**
 * A stdio MCP server that does nothing but answer: `initialize` as any server does, and every
 * other request with one stored tool result (CANNED_RESULT_FILE, the JSON of a result a real
 * server sent), encoded once: a request costs this process the writes of the line's bytes.
 * Speed part `seed` times it with each server's own get_handoff answer: what the same client
 * pays to receive and parse an answer of that size, with no work behind it.
 */
import fs from "node:fs";
import readline from "node:readline";

const result = fs.readFileSync(process.env.CANNED_RESULT_FILE ?? "");
const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line) as { id?: number | string; method: string; params?: { protocolVersion?: string } };
  if (message.id === undefined) return;
  if (message.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id: message.id,
      result: { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "canned", version: "1.0.0" } },
    });
  } else {
    process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":`);
    process.stdout.write(result);
    process.stdout.write("}\n");
  }
});
