import dns from "node:dns";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createHandoff } from "../lib/handoffs";
import { storedDate, write } from "../lib/database";
import { createWebhook, failedDeliveriesSince, listWebhooks, recentDeliveries, removeWebhook, startWebhookDispatcher } from "../lib/webhooks";
import { RefusedDestination, guardedLookup } from "../lib/webhooks/send";
import { rowsOf } from "./support/rows";

/**
 * Where webhooks may go: the rules of lib/webhooks/addresses at registration (table-driven) and
 * at delivery, where a row stored before the rules, or a name resolving to a refused address, is
 * never contacted. Loopback and LAN receivers stay allowed.
 */
const REFUSED: [url: string, why: RegExp][] = [
  ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254, a link-local address/],
  ["http://169.254.170.2/v2/credentials", /link-local/],
  ["http://[fe80::1]/hook", /fe80::1, a link-local address/],
  ["http://[fe80::a9fe:a9fe]/hook", /link-local/],
  // The odd IPv4 spellings the WHATWG URL parser turns into 169.254.169.254.
  ["http://2852039166/", /169\.254\.169\.254, a link-local address/],
  ["http://0xa9.0xfe.0xa9.0xfe/", /169\.254\.169\.254, a link-local/],
  ["http://0xa9fea9fe/", /169\.254\.169\.254, a link-local/],
  ["http://0251.0376.0251.0376/", /169\.254\.169\.254, a link-local/],
  ["http://169.254.43518/", /169\.254\.169\.254, a link-local/],
  // IPv6 forms carrying 169.254.169.254.
  ["http://[::ffff:169.254.169.254]/", /an IPv6 form of 169\.254\.169\.254, a link-local/],
  ["http://[::ffff:a9fe:a9fe]/", /an IPv6 form of 169\.254\.169\.254/],
  ["http://[64:ff9b::169.254.169.254]/", /an IPv6 form of 169\.254\.169\.254/],
  ["http://[::169.254.169.254]/", /an IPv6 form of 169\.254\.169\.254/],
  // Unspecified.
  ["http://0.0.0.0/hook", /0\.0\.0\.0, the unspecified address/],
  ["http://0/hook", /0\.0\.0\.0, the unspecified address/],
  ["http://0.0.0.0:3000/hook", /unspecified/],
  ["http://[::]/hook", /::, the unspecified address/],
  ["http://[::ffff:0.0.0.0]/hook", /an IPv6 form of 0\.0\.0\.0/],
  // Cloud metadata by name or address.
  ["http://metadata.google.internal/computeMetadata/v1/", /metadata\.google\.internal, a cloud metadata service/],
  ["http://METADATA.google.internal./computeMetadata/v1/", /a cloud metadata service/],
  ["http://metadata/computeMetadata/v1/", /a cloud metadata service/],
  ["http://instance-data/latest/", /a cloud metadata service/],
  ["http://[fd00:ec2::254]/latest/meta-data/", /fd00:ec2::254, a cloud metadata service/],
  ["http://100.100.100.200/latest/meta-data/", /a cloud metadata service/],
  // Not one receiver.
  ["http://255.255.255.255/", /broadcast/],
  ["http://224.0.0.1/", /multicast/],
  // Credentials.
  ["http://user:pass@example.com/hook", /must not carry a user name or password/],
  ["https://user@example.com/hook", /must not carry a user name or password/],
  ["https://:secret@example.com/hook", /must not carry a user name or password/],
  ["http://alice:hunter2@127.0.0.1:4000/hook", /must not carry a user name or password/],
];

const ALLOWED = [
  "https://example.com/baton-hook",
  "http://127.0.0.1:4000/hook",
  "http://localhost:4000/hook",
  "http://[::1]:4000/hook",
  "http://[::ffff:127.0.0.1]:4000/hook",
  // 0x7f.1 is 127.0.0.1: loopback stays allowed however it is spelled.
  "http://0x7f.1/hook",
  "http://192.168.1.20:8080/hook",
  "http://10.0.0.5/hook",
  "http://172.16.3.4/hook",
  "http://[fd12:3456::1]/hook",
  "http://100.64.0.1/hook",
  "http://receiver.lan/hook",
];

beforeEach(async () => {
  for (const hook of await listWebhooks()) await removeWebhook({ id: hook.id });
});

describe("registration refuses what a webhook must never reach, and says why", () => {
  it.each(REFUSED)("refuses %s", async (url, why) => {
    await expect(createWebhook({ url, events: ["entry.created"] })).rejects.toThrow(why);
    expect(await listWebhooks()).toEqual([]);
  });

  it.each(ALLOWED)("allows %s (loopback and LAN receivers are the point)", async (url) => {
    // Stored as it is contacted: the parser's reading of the odd spellings (0x7f.1 is 127.0.0.1).
    expect((await createWebhook({ url, events: ["entry.created"] })).webhook.url).toBe(new URL(url).href);
  });
});

const lookup = (hostname: string, all: boolean) =>
  new Promise<{ error: NodeJS.ErrnoException | null; address: string | dns.LookupAddress[] }>((resolve) =>
    guardedLookup(hostname, { all }, (error, address) => resolve({ error, address })),
  );

describe("each connection checks the addresses it resolves", () => {
  it("refuses a name resolving to a refused address, through the system resolver, in both lookup forms", async () => {
    for (const all of [true, false]) {
      const metadata = await lookup("169.254.169.254", all);
      expect(metadata.error).toBeInstanceOf(RefusedDestination);
      expect(metadata.error?.message).toBe("169.254.169.254 resolves to 169.254.169.254, a link-local address (169.254.0.0/16, fe80::/10), where cloud metadata services answer");
      expect((await lookup("0.0.0.0", all)).error).toBeInstanceOf(RefusedDestination);
    }
  });

  it("answers loopback names as the resolver does", async () => {
    const many = await lookup("localhost", true);
    expect(many.error).toBeNull();
    expect((many.address as dns.LookupAddress[]).map((entry) => entry.address)).toEqual(expect.arrayContaining([expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]));
    const one = await lookup("localhost", false);
    expect(one.error).toBeNull();
    expect(one.address).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

describe("the dispatcher refuses rows stored before the rules", () => {
  const received: string[] = [];
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      received.push(request.url ?? "");
      request.resume();
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A hook row as an older Baton stored it, without today's checks. */
  const storedHook = async (url: string, events: string[]) =>
    (await write((tx) =>
      tx.get<{ id: number }>("INSERT INTO webhooks (url, events, secret, status, consecutive_failures, created_at) VALUES (?, ?, 'whsec_old', 'active', 0, ?) RETURNING id", [
        url,
        JSON.stringify({ events, types: [] }),
        storedDate(),
      ]),
    ))!.id;

  it("never contacts user:pass@ or 0.0.0.0 hooks: the delivery fails at once, the hook pauses, the password is shown nowhere", async () => {
    const withPassword = await storedHook(`http://alice:hunter2@127.0.0.1:${port}/with-password`, ["entry.created"]);
    const unspecified = await storedHook(`http://0.0.0.0:${port}/unspecified`, ["entry.created"]);
    // By name: the control delivery goes through the checked lookup.
    const control = await storedHook(`http://localhost:${port}/control`, ["entry.created", "delivery.failed"]);
    const dispatcher = startWebhookDispatcher({ sendIntervalMs: 20 });
    await dispatcher.ready;
    try {
      const { attemptId } = await failedDeliveriesSince();
      await createHandoff({ title: "refused destinations", content: "start" });
      const deadline = Date.now() + 5000;
      const lastOf = async (webhookId: number) => (await recentDeliveries({ webhookId }))[0];
      const settled = async () =>
        (await lastOf(withPassword))?.status === "failed" &&
        (await lastOf(unspecified))?.status === "failed" &&
        received.filter((url) => url === "/control").length >= 3 &&
        (await rowsOf("SELECT id FROM webhook_deliveries WHERE status = 'pending'")).length === 0;
      while (!(await settled()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

      expect(received.filter((url) => url !== "/control")).toEqual([]);
      expect(await lastOf(withPassword)).toMatchObject({ status: "failed", attempts: 1, lastStatus: null, lastError: expect.stringMatching(/^not sent: url must not carry a user name or password/) });
      expect(await lastOf(unspecified)).toMatchObject({ status: "failed", attempts: 1, lastError: expect.stringMatching(/^not sent: url points at 0\.0\.0\.0, the unspecified address/) });
      const hooks = await listWebhooks();
      expect(hooks.find((hook) => hook.id === withPassword)).toMatchObject({ status: "paused", url: `http://127.0.0.1:${port}/with-password` });
      expect(hooks.find((hook) => hook.id === unspecified)?.status).toBe("paused");
      expect(hooks.find((hook) => hook.id === control)?.status).toBe("active");
      // The list, the browser notifications and the delivery.failed reports carry no password.
      expect(JSON.stringify(hooks)).not.toContain("hunter2");
      expect(JSON.stringify((await failedDeliveriesSince(attemptId)).failed)).not.toContain("hunter2");
      const reports = await rowsOf<{ payload: string }>("SELECT payload FROM webhook_deliveries WHERE event = 'delivery.failed'");
      expect(reports).toHaveLength(2);
      expect(JSON.stringify(reports)).not.toContain("hunter2");
    } finally {
      await dispatcher.stop();
    }
  });
});
