/**
 * The MCP HTTP door reuses built servers across requests (lib/mcp/handle-http.ts): a reused
 * server must answer each request with that request's identity and nothing of the last one's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandoff } from "../lib/handoffs";
import { serveApi, type ApiServer } from "./support/api-server";

let api: ApiServer;
beforeAll(async () => {
  api = await serveApi();
});
afterAll(() => api.close());
const POST = (request: Request) => api.route("POST", "/api/mcp")(request);

let requestId = 0;

async function addOver(id: string, query: string, content: string): Promise<{ fromClient: string; seq: number; isError: boolean }> {
  const response = await POST(
    new Request(`http://127.0.0.1/api/mcp${query}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++requestId, method: "tools/call", params: { name: "add_to_handoff", arguments: { id, type: "progress", content } } }),
    }),
  );
  expect(response.status).toBe(200);
  const { result } = (await response.json()) as { result: { isError?: boolean; structuredContent: { entry: { from_client: string; seq: number } } } };
  return { fromClient: result.structuredContent?.entry.from_client, seq: result.structuredContent?.entry.seq, isError: result.isError === true };
}

describe("MCP over HTTP with reused servers", () => {
  it("keeps each request's identity, in bursts of concurrent requests and one after another", async () => {
    const { handoff } = await createHandoff({ title: "Pool", content: "start" });
    const seqs = new Set<number>();
    for (let burst = 0; burst < 3; burst++) {
      const asked = Array.from({ length: 24 }, (_, index) => (index % 3 === 0 ? "?as=code" : index % 3 === 1 ? "?as=chat" : ""));
      const answers = await Promise.all(asked.map((query, index) => addOver(handoff.id, query, `burst ${burst} call ${index}`)));
      answers.forEach((answer, index) => {
        expect(answer.isError).toBe(false);
        expect(answer.fromClient).toBe(asked[index] === "?as=code" ? "code" : "chat");
        seqs.add(answer.seq);
      });
      // One at a time: the same idle server serves each in turn.
      for (const query of ["?as=code", "", "?as=code", "?as=chat"]) {
        const answer = await addOver(handoff.id, query, `burst ${burst} alone ${query}`);
        expect(answer.fromClient).toBe(query === "?as=code" ? "code" : "chat");
        seqs.add(answer.seq);
      }
    }
    expect(seqs.size).toBe(3 * (24 + 4));
  });

  it("refuses an unknown identity with 400", async () => {
    const response = await POST(new Request("http://127.0.0.1/api/mcp?as=robot", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }));
    expect(response.status).toBe(400);
  });
});
