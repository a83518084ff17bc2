import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serveApi, type ApiServer } from "./support/api-server";

/**
 * A DATABASE_URL that sets session options of its own (`?options=-c search_path=…`, as a team
 * with a schema per application writes it) keeps Baton's: UTC, through the served API on a real
 * socket. The database's own time zone is set far from UTC, so a session left in it shows.
 */
const testDatabase = new URL(process.env.DATABASE_URL!).pathname.slice(1);
const admin = new pg.Client({ connectionString: process.env.BATON_TEST_POSTGRES_ADMIN_URL });

let api: ApiServer;
beforeAll(async () => {
  await admin.connect();
  await admin.query(`ALTER DATABASE "${testDatabase}" SET timezone TO 'Pacific/Kiritimati'`);
  process.env.DATABASE_URL = `${process.env.DATABASE_URL}?options=${encodeURIComponent("-c search_path=public")}`;
  api = await serveApi();
});
afterAll(async () => {
  await api?.close();
  await admin.end();
});

/** The live-update events up to `event: ready`, each as its data. */
async function changes(): Promise<{ subject: string; at: string }[]> {
  const response = await api.fetch("/api/events?after=0", { signal: AbortSignal.timeout(10_000) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("event: ready")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return [...text.matchAll(/^id: \d+\ndata: (.*)$/gm)].map((match) => JSON.parse(match[1]) as { subject: string; at: string });
}

it("keeps Baton's UTC session when the URL sets options of its own: the change feed's times are now, not 14 hours off", async () => {
  const started = Date.now();
  const created = await api.fetch("/api/handoffs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ title: "Options", content: "first" }) });
  expect(created.status).toBe(201);
  const feed = await changes();
  expect(feed.map((change) => change.subject)).toEqual(["handoff", "entry", "handoff"]);
  for (const change of feed) expect(Math.abs(Date.parse(change.at) - started)).toBeLessThan(60_000);
});
