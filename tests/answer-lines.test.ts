import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { messagePieces, rememberSerialized, StdioAnswerTransport } from "../lib/mcp/answer-lines";

const lineOf = (message: JSONRPCMessage) => messagePieces(message).join("");

/** lib/mcp/answer-lines.ts: a tool answer's structure is sent as the JSON made for its text block, once. */
describe("answer lines", () => {
  it("keep nothing in a process that serves no stdio (the HTTP door never sends them as lines)", () => {
    const structure = { kept: "no" };
    const text = JSON.stringify(structure);
    rememberSerialized(text);
    const message = { result: { content: [{ type: "text", text }], structuredContent: structure }, jsonrpc: "2.0", id: 1 } as unknown as JSONRPCMessage;
    expect(lineOf(message)).toBe(`${JSON.stringify(message)}\n`);
    // The stdio transport, once made, has answers kept (it only reads stdin once started).
    new StdioAnswerTransport();
  });

  it("say what JSON.stringify says, for any structure, remembered or not", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), fc.boolean(), (structure, remembered, withContent) => {
        const text = JSON.stringify(structure);
        if (remembered) rememberSerialized(text);
        const result = withContent ? { content: [{ type: "text", text }], structuredContent: structure } : { structuredContent: structure };
        // The SDK builds a response as { result, jsonrpc, id }: the result comes first.
        const message = { result, jsonrpc: "2.0", id: 7 } as unknown as JSONRPCMessage;
        const line = lineOf(message);
        expect(line.endsWith("\n")).toBe(true);
        expect(line.slice(0, -1)).not.toContain("\n");
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(message)));
      }),
    );
  });

  it("are spliced when the answer's structure was copied on its way out (the SDK checks it against its schema)", () => {
    const structure = { entries: [{ number: 1, content: 'say "hi"' }] };
    const text = JSON.stringify(structure);
    rememberSerialized(text);
    const copied = structuredClone(structure);
    const message = { result: { content: [{ type: "text", text }], structuredContent: copied }, jsonrpc: "2.0", id: 3 } as unknown as JSONRPCMessage;
    const line = lineOf(message);
    // Spliced: the structure goes last, after the envelope's other members.
    expect(line).toBe(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}}\n`);
    expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(message)));
  });

  it("send other messages as they are", () => {
    const request = { jsonrpc: "2.0", id: 1, method: "tools/list" } as JSONRPCMessage;
    expect(lineOf(request)).toBe(`${JSON.stringify(request)}\n`);
  });
});
