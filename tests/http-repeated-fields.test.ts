import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "../lib/auth";
import { serveApi, type ApiServer } from "./support/api-server";
import { countRows } from "./support/rows";

/**
 * A request that gives Authorization or Content-Type twice, through Baton's own server on a real
 * socket. Node keeps the first of each and drops the rest; a proxy in front may read the last
 * (one that adds its own Authorization after the client's, say). Which one was meant cannot be
 * told, as with two Host fields: the request is refused before anything reads either.
 */
let served: ApiServer;
let agent: string;
beforeAll(async () => {
  served = await serveApi({ BATON_AUTH: "required" });
  agent = (await createToken({ name: "repeated-fields", role: "agent" })).token;
});
afterAll(() => served?.close());

/** One request whose fields are sent as given, an array as that many field lines. */
function send(method: string, path: string, headers: Record<string, string | string[]>, body?: string): Promise<{ status: number; body: string }> {
  const { hostname, port, host } = new URL(served.origin);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, method, path, headers: { host, ...headers } }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("a field that may be given once, given twice", () => {
  it("refuses two Authorization fields with 400, whichever of them is good", async () => {
    for (const pair of [
      [`Bearer ${agent}`, "Bearer baton_garbage"],
      ["Bearer baton_garbage", `Bearer ${agent}`],
      [`Bearer ${agent}`, `Bearer ${agent}`],
    ]) {
      const answer = await send("GET", "/api/handoffs", { authorization: pair });
      expect(answer.status, pair.join(" / ")).toBe(400);
      expect((JSON.parse(answer.body) as { error: { message: string } }).error.message).toContain("2 Authorization fields");
    }
    expect((await send("GET", "/api/handoffs", { authorization: `Bearer ${agent}` })).status).toBe(200);
  });

  it("refuses two Content-Type fields with 400 and stores nothing", async () => {
    const before = await countRows("handoffs");
    const body = JSON.stringify({ title: "typed twice", content: "x" });
    const answer = await send("POST", "/api/handoffs", { authorization: `Bearer ${agent}`, "content-type": ["application/json", "text/plain"], "content-length": String(Buffer.byteLength(body)) }, body);
    expect(answer.status).toBe(400);
    expect((JSON.parse(answer.body) as { error: { message: string } }).error.message).toContain("2 Content-Type fields");
    expect(await countRows("handoffs")).toBe(before);
  });
});
