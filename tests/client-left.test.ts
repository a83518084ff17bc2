import net from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { EXAMPLE_DOCUMENTS } from "../lib/formats/examples";
import { serveApi, type ApiServer } from "./support/api-server";
import { countRows } from "./support/rows";

/**
 * A client that closes its connection halfway through a body, through Baton's own server on a
 * real socket. Node ended the request with its own 'aborted' (ECONNRESET) under the handler's
 * read, which the API answered as Baton's failure: `Error: aborted` and its stack on the server's
 * stderr, as an internal error would be. It is the client's doing: nothing is stored, nothing is
 * logged, and the server answers the next request.
 */
let api: ApiServer;
beforeAll(async () => {
  api = await serveApi();
});
afterAll(() => api?.close());

/** What the server writes to its log (console.error, the way Baton logs) during a test. */
let logged: string[] = [];
beforeEach(() => {
  logged = [];
  vi.spyOn(console, "error").mockImplementation((...parts: unknown[]) => void logged.push(parts.map((part) => (part instanceof Error ? (part.stack ?? String(part)) : String(part))).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

/** Sends `path` a request's headers and the first half of `body`, waits a moment, then closes the socket. */
function sendHalfAndLeave(path: string, body: string): Promise<void> {
  const { hostname, port } = new URL(api.origin);
  const bytes = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`);
      socket.write(bytes.subarray(0, bytes.length / 2));
      // Long enough for the handler to be reading the body when the client goes.
      setTimeout(() => socket.destroy(), 300);
    });
    socket.on("close", () => resolve());
    socket.on("error", reject);
  });
}

describe("a client that leaves halfway through its body", () => {
  it("at a write route, an import and MCP: nothing stored, nothing logged, the next request answered", async () => {
    const handoffsBefore = await countRows("handoffs");
    await sendHalfAndLeave("/api/handoffs", JSON.stringify({ title: "Left halfway", content: "x".repeat(4096) }));
    await sendHalfAndLeave("/api/import", JSON.stringify({ text: EXAMPLE_DOCUMENTS.handoff_yaml.text, fileName: "left.yaml" }));
    await sendHalfAndLeave("/api/mcp", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(2000) } }));
    // What the server did with them happens after the sockets closed.
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(logged.join("\n")).not.toMatch(/internal error|\n\s+at |aborted|ECONNRESET/i);
    expect(logged).toEqual([]);
    expect(await countRows("handoffs")).toBe(handoffsBefore);

    const next = await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "After they left", content: "answered" }) });
    expect(next.status).toBe(201);
    expect(await countRows("handoffs")).toBe(handoffsBefore + 1);
  });
});
