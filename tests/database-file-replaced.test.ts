import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { subscribe } from "../lib/changes";
import { closeDatabase, read } from "../lib/database";
import { createHandoff } from "../lib/handoffs";
import { serveApi, type ApiServer } from "./support/api-server";
import { temporaryFolders } from "./support/temp-folders";

/**
 * The SQLite file moved away under a running server (its data folder renamed, the file deleted):
 * SQLite in WAL mode writes on through the open file without a word, so the server answered 201
 * to appends that were gone at its next start. Its own SQLite file, so it runs once, on any engine.
 */
const tempFolder = temporaryFolders("baton-file-moved-");
const ownUrl = process.env.DATABASE_URL;
/** Past lib/database/sqlite.ts's FILE_CHECK_EVERY_MS. */
const CHECK_PASSED_MS = 400;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
let api: ApiServer;

beforeAll(async () => {
  api = await serveApi();
});
afterAll(async () => {
  await api.close();
  await closeDatabase();
  process.env.DATABASE_URL = ownUrl;
});

/** A data folder of its own with a migrated database, which the process then uses. */
function useOwnDatabase(): { folder: string; file: string } {
  const folder = path.join(tempFolder(), "data");
  fs.mkdirSync(folder);
  const file = path.join(folder, "baton.db");
  fs.copyFileSync(process.env.BATON_TEMPLATE_DB!, file);
  process.env.DATABASE_URL = `file:${file}`;
  return { folder, file };
}

it("refuses an append (503, nothing stored) once the data folder was moved away under the server, and takes them again once it is back", async () => {
  const { folder } = useOwnDatabase();
  const { handoff } = await createHandoff({ title: "moved", content: "start" });
  const append = (content: string) =>
    api.fetch(`/api/handoffs/${handoff.id}/entries`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "progress", content }) });
  expect((await append("before the move")).status).toBe(201);

  fs.renameSync(folder, `${folder}-moved`);
  await sleep(CHECK_PASSED_MS);
  const refused = await append("while moved");
  expect(refused.status).toBe(503);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/was deleted, moved or replaced while this process had it open; nothing of this request was stored/);
  // A load balancer's health check says so too.
  expect((await api.fetch("/api/health")).status).toBe(503);

  fs.renameSync(`${folder}-moved`, folder);
  await sleep(CHECK_PASSED_MS);
  expect((await append("after it came back")).status).toBe(201);
  expect((await api.fetch("/api/health")).status).toBe(200);
  const stored = await read((tx) => tx.rows<[string]>("SELECT content FROM handoff_entries WHERE handoff_id = ? ORDER BY seq", [handoff.id]));
  expect(stored.flat()).toEqual(["start", "before the move", "after it came back"]);
});

it("a live subscriber's feed says once that it cannot read the moved database, not at every check, and again when it reads it", async () => {
  const { folder } = useOwnDatabase();
  const subscription = await subscribe({}, () => undefined);
  const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
  try {
    fs.renameSync(folder, `${folder}-moved`);
    // Past the file check, then several of the feed's 100 ms checks.
    await sleep(CHECK_PASSED_MS + 600);
    const failures = () => logged.mock.calls.filter(([message]) => String(message).includes("change feed could not read")).length;
    expect(failures()).toBe(1);
    fs.renameSync(`${folder}-moved`, folder);
    await sleep(CHECK_PASSED_MS + 200);
    expect(failures()).toBe(1);
    expect(logged.mock.calls.some(([message]) => String(message).includes("change feed reads the database again"))).toBe(true);
  } finally {
    logged.mockRestore();
    subscription.close();
  }
});
