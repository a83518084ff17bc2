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
    rememberSerialized(text, structure, () => text);
    const message = { result: { content: [{ type: "text", text }], structuredContent: structure }, jsonrpc: "2.0", id: 1 } as unknown as JSONRPCMessage;
    expect(lineOf(message)).toBe(`${JSON.stringify(message)}\n`);
    // The stdio transport turns keeping on when it is made.
    keepAnswersForLines();
  });

  it("say what JSON.stringify says, for any structure, remembered or not, with its JSON or another text as its text block", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), fc.boolean(), fc.option(fc.string()), fc.option(fc.string()), (structure, remembered, withContent, lead, transcript) => {
        const text = transcript ?? JSON.stringify(structure);
        if (remembered) rememberSerialized(text, structure, () => JSON.stringify(structure));
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

  it("are spliced when the answer's structure was copied on its way out (the SDK checks it against its schema, copying the top level)", () => {
    const structure = { entries: [{ number: 1, content: 'say "hi"' }] };
    const text = JSON.stringify(structure);
    rememberSerialized(text, structure, () => text);
    const message = { result: { content: [{ type: "text", text }], structuredContent: { ...structure } }, jsonrpc: "2.0", id: 3 } as unknown as JSONRPCMessage;
    const line = lineOf(message);
    // Spliced: the structure goes last, after the envelope's other members.
    expect(line).toBe(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}}\n`);
    expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(message)));
  });

  it("carry each its own structure when answers in flight share a text block (a transcript that does not show what differs)", () => {
    const text = "# One thread, as read by code";
    const first = { handoff: { chat_last_seen: 4 }, entry_count: 9 };
    const second = { handoff: { chat_last_seen: 9 }, entry_count: 9 };
    rememberSerialized(text, first, () => JSON.stringify(first));
    rememberSerialized(text, second, () => JSON.stringify(second));
    const messageOf = (structure: object, id: number) => ({ result: { content: [{ type: "text", text }], structuredContent: { ...structure } }, jsonrpc: "2.0", id }) as unknown as JSONRPCMessage;
    // Sent in the other order than they were made, as two calls may end.
    for (const [structure, id] of [[second, 2], [first, 1]] as const) {
      const line = lineOf(messageOf(structure, id));
      expect(line).toContain(`"structuredContent":${JSON.stringify(structure)}`);
      expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(messageOf(structure, id))));
    }
    // A third answer with that text, never remembered, is serialized whole.
    const third = { handoff: { chat_last_seen: 1 }, entry_count: 9 };
    expect(lineOf(messageOf(third, 4))).toBe(`${JSON.stringify(messageOf(third, 4))}\n`);
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
