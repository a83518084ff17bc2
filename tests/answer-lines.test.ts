import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { keepAnswersForLines, messagePieces, rememberSerialized } from "../lib/mcp/answer-lines";
import { requestIdOfEdges } from "../lib/mcp/stdio-transport";

const lineOf = (message: JSONRPCMessage) => Buffer.concat(messagePieces(message).map((piece) => Buffer.from(piece))).toString();

/** lib/mcp/answer-lines.ts: a tool answer's structure is sent as the JSON made for its text block, once. */
describe("answer lines", () => {
  it("keep nothing in a process that serves no stdio (the HTTP door never sends them as lines)", () => {
    const structure = { kept: "no" };
    const text = JSON.stringify(structure);
    rememberSerialized(text);
    const message = { result: { content: [{ type: "text", text }], structuredContent: structure }, jsonrpc: "2.0", id: 1 } as unknown as JSONRPCMessage;
    expect(lineOf(message)).toBe(`${JSON.stringify(message)}\n`);
    // The stdio transport turns keeping on when it is made.
    keepAnswersForLines();
  });

  it("say what JSON.stringify says, for any structure, remembered or not", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), fc.boolean(), fc.option(fc.string()), (structure, remembered, withContent, lead) => {
        const text = JSON.stringify(structure);
        if (remembered) rememberSerialized(text);
        // A lead (a staleness warning) goes before the JSON's text block; the text is spliced in escaped.
        const blocks = [...(lead === null ? [] : [{ type: "text", text: lead }]), { type: "text", text }];
        const result = withContent ? { content: blocks, structuredContent: structure } : { structuredContent: structure };
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

/** lib/mcp/stdio-transport.ts: the request a line too long to read carried, found from its first and last bytes. */
describe("the id of a line too long to read", () => {
  const edges = (line: string) => [line.slice(0, 256), line.slice(-256)] as const;
  const id = fc.oneof(fc.integer(), fc.string());
  const params = fc.dictionary(fc.string(), fc.jsonValue());

  it("is found with the id written first or last, whatever the params hold", () => {
    fc.assert(
      fc.property(id, params, (requestId, requestParams) => {
        expect(requestIdOfEdges(...edges(JSON.stringify({ method: "tools/call", params: requestParams, jsonrpc: "2.0", id: requestId })))).toEqual(requestId);
        expect(requestIdOfEdges(...edges(JSON.stringify({ jsonrpc: "2.0", id: requestId, method: "tools/call", params: requestParams })))).toEqual(requestId);
      }),
    );
  });

  it("is null for a notification, even one whose params carry an id", () => {
    fc.assert(
      fc.property(id, params, (inner, requestParams) => {
        expect(requestIdOfEdges(...edges(JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { ...requestParams, id: inner } })))).toBeNull();
        expect(requestIdOfEdges(...edges(JSON.stringify({ method: "notifications/x", params: { id: inner, ...requestParams }, jsonrpc: "2.0" })))).toBeNull();
      }),
    );
  });
});
