import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "../lib/auth";
import { changeFeedStats, MAX_STREAMS_PER_CALLER } from "../lib/changes";
import { write } from "../lib/database";
import { guardPolicy } from "../lib/guard";
import { createBatonHttpServer } from "../lib/server";
import { serveApi, type ApiServer } from "./support/api-server";

/**
 * Live-update streams are a per-caller resource with a cap (one operator token opened 2,000 of
 * them and the server grew to 300 MB): over real sockets against Baton's own server, a caller's
 * stream past the cap gets 429 with Retry-After, another caller is unaffected, and a closed
 * stream gives its slot back.
 */
describe("live-update streams per caller", () => {
  let server: ApiServer;
  let first: string;
  let second: string;
  beforeAll(async () => {
    server = await serveApi();
    first = (await createToken({ name: "streams-a", role: "operator" })).token;
    second = (await createToken({ name: "streams-b", role: "operator" })).token;
  });
  afterAll(() => server.close());

  const open = async (token: string) => {
    const controller = new AbortController();
    const response = await server.fetch("/api/events", { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    return { response, close: () => controller.abort() };
  };

  it("refuses the stream past the cap with 429 and Retry-After, keeps other callers' streams, and frees a slot when one closes", async () => {
    const streams = await Promise.all(Array.from({ length: MAX_STREAMS_PER_CALLER }, () => open(first)));
    expect(streams.map((stream) => stream.response.status)).toEqual(streams.map(() => 200));

    const refused = await open(first);
    expect(refused.response.status).toBe(429);
    expect(Number(refused.response.headers.get("retry-after"))).toBeGreaterThan(0);
    // The API's error shape, as every other refusal: a code beside the message.
    expect(await refused.response.json()).toEqual({ error: { code: "REFUSED", message: expect.stringMatching(/too many live-update streams/) } });

    const other = await open(second);
    expect(other.response.status).toBe(200);

    streams[0].close();
    await expect.poll(async () => {
      const again = await open(first);
      again.close();
      return again.response.status;
    }).toBe(200);

    for (const stream of [...streams, other]) stream.close();
    await expect.poll(() => changeFeedStats().subscribers).toBe(0);
  });

  it("takes no slot for good with HEAD: a stream's headers, as often as asked, leave GET its streams", async () => {
    for (let index = 0; index < MAX_STREAMS_PER_CALLER * 2; index++) {
      const head = await server.fetch("/api/events", { method: "HEAD", headers: { authorization: `Bearer ${first}` } });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-type")).toMatch(/text\/event-stream/);
    }
    await expect.poll(() => changeFeedStats().subscribers).toBe(0);
    const stream = await open(first);
    expect(stream.response.status).toBe(200);
    stream.close();
  });

  it("closes the connection of a client that stopped reading when it gives up on its stream, so not reading holds no streams past the cap", async () => {
    // Baton's server as serveApi starts it, here for its count of open connections.
    const own = createBatonHttpServer({ policy: guardPolicy({}) });
    await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
    const port = (own.address() as net.AddressInfo).port;
    const connections = () => new Promise<number>((resolve) => own.getConnections((_, count) => resolve(count)));
    const sockets: net.Socket[] = [];
    try {
      // Clients that ask for a stream and then read nothing (no 'data' listener: Node stops reading at 16 KiB).
      for (let index = 0; index < MAX_STREAMS_PER_CALLER; index++) {
        const socket = net.connect(port, "127.0.0.1");
        socket.on("error", () => {});
        socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${first}\r\n\r\n`);
        sockets.push(socket);
      }
      await expect.poll(() => changeFeedStats().subscribers).toBe(MAX_STREAMS_PER_CALLER);
      // A bulk write (an import of thousands of entries): more changes than a stream queues for a
      // client that does not read, once the sockets' buffers (up to 4 MiB on the server's side) are full.
      await write((tx) =>
        tx.run("INSERT INTO changes (subject, action) SELECT 'handoff', 'updated' FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000) SELECT i FROM n) AS numbers"),
      );
      // Each stream gave up on its client and its slot came back: the caller may open 32 more ...
      await expect.poll(() => changeFeedStats().subscribers, { timeout: 20_000 }).toBe(0);
      // ... so the connections and what was queued on them must have gone too.
      await expect.poll(connections, { timeout: 5_000 }).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  }, 60_000);
});
