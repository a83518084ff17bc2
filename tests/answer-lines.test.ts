import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { messageLine, rememberSerialized } from "../lib/mcp/answer-lines";

/** lib/mcp/answer-lines.ts: a tool answer's structure is sent as the JSON made for its text block, once. */
describe("answer lines", () => {
  it("say what JSON.stringify says, for any structure, remembered or not", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.boolean(), fc.boolean(), (structure, remembered, withContent) => {
        const text = JSON.stringify(structure);
        if (remembered) rememberSerialized(structure, text);
        const result = withContent ? { content: [{ type: "text", text }], structuredContent: structure } : { structuredContent: structure };
        const message = { jsonrpc: "2.0", id: 7, result } as unknown as JSONRPCMessage;
        const line = messageLine(message);
        expect(line.endsWith("\n")).toBe(true);
        expect(line.slice(0, -1)).not.toContain("\n");
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(message)));
      }),
    );
  });

  it("send other messages as they are", () => {
    const request = { jsonrpc: "2.0", id: 1, method: "tools/list" } as JSONRPCMessage;
    expect(messageLine(request)).toBe(`${JSON.stringify(request)}\n`);
  });
});
